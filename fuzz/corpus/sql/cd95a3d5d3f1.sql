-- Andows is rejected, as in Flink: the two sides' sessions need not
-- line up.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join//left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '..n/data/right.csv', 'format' = 'csv');

SELECT L.id, R.id
FROM (SELECT * FROM TABLE(SESSION(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
JOIN (SELECT * FROM@TABLE(SESSION(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;