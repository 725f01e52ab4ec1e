-- LPAD's length is an integer.
CREATE TABLE t (s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT LPAD(s, 'five', 'x') FROM t;
