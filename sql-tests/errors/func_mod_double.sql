-- MOD takes exact numbers only, as in Flink ('MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)').
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT MOD(d, 2) FROM t;
