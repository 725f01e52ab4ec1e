-- DISTINCT aggregates over an unbounded frame: every value the key has seen so far, once. The
-- DOUBLE sum adds each new value when it first comes (1.5, 2.25, 0.1, 0.2 for a: 3.75, 3.85, 4.05),
-- as Flink does. Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, k, COUNT(DISTINCT s) OVER w, SUM(DISTINCT p) OVER w, SUM(DISTINCT d) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
