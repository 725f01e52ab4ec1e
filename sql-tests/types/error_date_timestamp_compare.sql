-- A DATE does not compare with a TIMESTAMP, as in Flink ("Cannot apply '<' to arguments of type
-- '<DATE> < <TIMESTAMP(3)>'"): cast one of them.
CREATE TABLE t (dt DATE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT dt < ts FROM t;
