-- A win's ON must equate both window_start and window_end: here window_end is missing.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/right.csv', 'format' = 'csv');

SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.num = R.num AND L.window_start = R.window_start;
