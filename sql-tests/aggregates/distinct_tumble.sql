-- DISTINCT aggregates and FILTER clauses in a TUMBLE aggregation. A DISTINCT aggregate sees each
-- value once per window (NULLs never): SUM(DISTINCT p) of 5, 5, 12, NULL, 12 is 17. MIN, MAX and
-- FIRST_VALUE are the same with or without DISTINCT; LAST_VALUE(DISTINCT s) is the last value
-- seen for the first time (z for x, y, x, z, y), LISTAGG(DISTINCT s) lists values in first-seen
-- order. FILTER (WHERE c) aggregates only the rows where c is TRUE (a NULL p is not > 4); with
-- DISTINCT it applies first. Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k,
  FIRST_VALUE(DISTINCT s), LAST_VALUE(DISTINCT s), LAST_VALUE(s),
  SUM(DISTINCT p), AVG(DISTINCT p), COUNT(DISTINCT p), MIN(DISTINCT p), MAX(DISTINCT s),
  LISTAGG(DISTINCT s), SUM(DISTINCT d),
  COUNT(*) FILTER (WHERE p > 4), SUM(p) FILTER (WHERE s = 'x'),
  COUNT(DISTINCT s) FILTER (WHERE p > 4), LISTAGG(DISTINCT s, ';') FILTER (WHERE p < 10)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
