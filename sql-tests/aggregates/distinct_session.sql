-- DISTINCT and FILTER in SESSION windows: when rows join sessions together, their distinct values
-- are united (a's session 1 s to 10 s lists x,y,z once each). AVG(DISTINCT d) FILTER (WHERE s <> 'y')
-- averages the distinct d of rows whose s is neither 'y' nor NULL: (1.5 + 2.25 + 0.1) / 3.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, window_end, k, SUM(DISTINCT p), LISTAGG(DISTINCT s), COUNT(*) FILTER (WHERE p > 4),
  AVG(DISTINCT d) FILTER (WHERE s <> 'y')
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
