-- DATE_FORMAT's pattern is checked at planning: a TIMESTAMP has no zone, so a zone letter (z, V, v,
-- O, X, x, Z) is refused outside an optional section [...]. Flink fails the job when it runs
-- ("Unable to extract ZoneId from temporal").
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm z') FROM t;
