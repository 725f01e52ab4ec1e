-- DATE_FORMAT's pattern is checked at planning: Q (quarter) is not a supported letter (Flink
-- writes the quarter; tidemark translates patterns to chrono, which has none).
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/funcs.csv', 'format' = 'csv');

SELECT DATE_FORMAT(ts, 'yyyy-QQ') FROM t;
