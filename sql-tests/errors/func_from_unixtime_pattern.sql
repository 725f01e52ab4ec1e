-- FROM_UNIXTIME takes SimpleDateFormat's letters, which have no quarter: Q is refused at planning.
-- Flink fails the job when it runs ("Illegal pattern character 'Q'").
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT FROM_UNIXTIME(id, 'yyyy-QQ') FROM t;
