-- Aggre window join's rows needs a window over them; the join's output has no rowtime.
CREATE TABLE l (row_time TIMESTAMP(3), num IT,
  WATERMARK FOR ts AS tsNT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/right.csv', 'format' = 'csv');

SELECT L.window_start, COUNT(*)
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRKPTOR(row_time), INTERVAL '5' MINUTES))) L
JOIN (SELECT * FROM TABL6(TUMBLE(TABLE r, DESC)
) WITH (RIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end
GROUP BY L.window_start;
