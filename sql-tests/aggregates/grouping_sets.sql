-- GROUPING SETS in a TUMBLE aggregation: each window gives one row per group of each set, the keys
-- a set leaves out NULL. b's real NULL s (at 8 s) is its own group of (k, s), with GROUPING(s) = 0,
-- apart from b's row of (k), where GROUPING(s) = 1. GROUPING_ID(k, s) has k as the high bit.
-- COUNT(k) of the () set counts every row (the key is only NULL as a grouping, not as a value).
-- HAVING keeps groups of two rows or more and the grand totals.
-- Outputs checked against Flink 2.3 (rows of one window compared as a set).
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, s, SUM(p), COUNT(*), COUNT(k), COUNT(DISTINCT s), GROUPING(k), GROUPING(s), GROUPING_ID(k, s), CASE WHEN GROUPING(s) = 1 THEN 'all' ELSE s END AS s_label FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, GROUPING SETS ((k, s), (k), ()) HAVING COUNT(*) > 1 OR GROUPING(k) = 1;
