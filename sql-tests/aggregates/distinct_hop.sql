-- DISTINCT aggregates in HOP windows, which Flink 2.3 refuses ("This function does not support
-- retraction"): a window sees each value once, whichever of its slices hold it. a's window from
-- 0 s has p 5, 5, 12, NULL, 12 (SUM 17, AVG 8); b's window from 5 s has 3, 20, 20 (SUM 23, AVG 11,
-- INT division). Reasoned from the definition: each window's distinct non-NULL values.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, SUM(DISTINCT p), AVG(DISTINCT p), COUNT(DISTINCT s), SUM(DISTINCT d)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
