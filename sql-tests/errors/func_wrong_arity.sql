-- SPLIT_INDEX takes three arguments (text, separator, index); a missing one is a planning error at the call.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT SPLIT_INDEX(s, ',') FROM t;
