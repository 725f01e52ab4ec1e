-- An idle timeout that is not a duration (here a negative one) is refused where it is written.
CREATE TABLE a (ts TIMESTAMP(3), k STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv', 'scan.watermark.idle-timeout' = '-5 s');
