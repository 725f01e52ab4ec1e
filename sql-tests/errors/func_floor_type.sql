-- FLOOR(x TO unit) needs a TIMESTAMP.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT FLOOR(s TO DAY) FROM t;
