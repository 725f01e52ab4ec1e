-- IF's condition must be a BOOLEAN.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT IF(id, 'a', 'b') FROM t;
