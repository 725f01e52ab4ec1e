-- A regex read from a column is compiled per value; one that does not compile stops the job with
-- an error naming it (the second row's '('). Flink gives NULL instead; tidemark does not hide it.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT id, REGEXP_EXTRACT(s, p) FROM t;
