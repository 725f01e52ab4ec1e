-- TIMESTAMPDIFF of a TIMESTAMP and a TIMESTAMP_LTZ is refused, as Flink refuses it.
CREATE TABLE t (k STRING, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT TIMESTAMPDIFF(SECOND, ts, TO_TIMESTAMP_LTZ(0, 3)) FROM t;
