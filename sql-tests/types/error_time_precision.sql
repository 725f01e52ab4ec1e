-- TIME keeps milliseconds, as TIMESTAMP does: TIME(0) to TIME(3) are columns, a finer TIME(p)
-- is refused with the precisions that work.
CREATE TABLE t (k STRING, tm TIME(6))
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');
