-- ROUND's digits must be an integer literal: the result type of ROUND on a DECIMAL depends on it.
-- Flink also takes a column for DOUBLE; tidemark asks for a literal for every type.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT ROUND(d, id) FROM t;
