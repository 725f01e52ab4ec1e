-- DISTINCT aggregates over a ROWS frame: each row's frame (it and the two rows of its key before
-- it) counts a value once. a at 7 s has p 12, NULL, 12 in its frame: SUM(DISTINCT p) 12; at 16 s
-- p 12, 5, 7: 24. COUNT(DISTINCT s) skips NULL s (b at 8 s counts only x). MAX is unchanged by
-- DISTINCT. Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, k, COUNT(DISTINCT s) OVER w, SUM(DISTINCT p) OVER w, MAX(DISTINCT p) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
