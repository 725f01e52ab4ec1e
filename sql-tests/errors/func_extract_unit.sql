-- EXTRACT supports YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, DOW and DOY; Flink also
-- has EPOCH, which tidemark does not have yet.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT EXTRACT(EPOCH FROM ts) FROM t;
