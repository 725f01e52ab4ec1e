-- A literal regex that does not compile fails at planning, pointing at it.
CREATE TABLE t (s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT REGEXP_REPLACE(s, 'a(b', 'x') FROM t;
