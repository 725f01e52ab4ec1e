-- UNIX_TIMESTAMP() reads the clock (Flink gives the current time); tidemark's results are
-- reproducible, so it is refused with a hint.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT UNIX_TIMESTAMP() FROM t;
