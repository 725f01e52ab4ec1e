-- TO_DATE returns DATE, which tidemark does not have yet: refused with what to write instead.
CREATE TABLE t (s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT TO_DATE(s) FROM t;
