-- DISTINCT aggregates over a RANGE frame of 5 s: b at 12 s sees the rows of 8 s and 12 s (p 3 and
-- 20: 23; s NULL and w: 1), b at 14 s those of 12 s and 14 s (p 20 twice: 20).
-- Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, k, COUNT(DISTINCT s) OVER w, SUM(DISTINCT p) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW);
