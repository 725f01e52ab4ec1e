-- SUBSTRING's text must be a STRING, as in Flink; the error points at the argument and hints at CAST.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT SUBSTRING(id FROM 2) FROM t;
