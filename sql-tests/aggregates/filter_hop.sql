-- FILTER in HOP windows: each 10 s window counts and sums only its rows that pass the filter,
-- across both of its 5 s slices (a's window from 0 s counts 5, 5, 12 and 12 as > 4, not the NULL).
-- LISTAGG without DISTINCT lists the later slice first, as Flink merges slices.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, LISTAGG(s), COUNT(*) FILTER (WHERE p > 4), SUM(p) FILTER (WHERE s = 'x')
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
