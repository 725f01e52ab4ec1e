-- GROUPING SETS over the windows of another window aggregation's results (grouped by their
-- window_start, window_end without a second TVF) are refused; the hint gives the cascade through
-- a second TVF over window_time, which takes them.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, window_end, k, SUM(c) AS c
FROM (
  SELECT window_start, window_end, k, s, COUNT(*) AS c
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, k, s
)
GROUP BY window_start, window_end, ROLLUP (k);
