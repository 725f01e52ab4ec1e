-- Timestamps are kept to the millisecond: a TIMESTAMP(p) or TIMESTAMP_LTZ(p) finer than that is
-- refused where it is declared, rather than shown with fewer digits than Flink shows.
CREATE TABLE t (k STRING, ts TIMESTAMP(6))
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');
