-- A Flink built-in that tidemark does not have yet is named as such, not as an unknown function.
CREATE TABLE t (ts TIMESTAMP(3), num INT, id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');

SELECT id, MD5(id) AS digest FROM t;
