-- Join keys must have the same type: INT against STRING is an error with a hint to CAST.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/right.csv', 'format' = 'csv');

SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.num = R.id;
