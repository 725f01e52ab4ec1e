-- GREATEST and LEAST need arguments of one comparable type, as Flink: INT and STRING do not mix.
CREATE TABLE t (n INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT GREATEST(n, s) FROM t;
