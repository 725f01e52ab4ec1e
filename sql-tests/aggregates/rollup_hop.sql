-- ROLLUP (k, s) over HOP windows: the sets (k, s), (k) and (), each per 10 s window; LISTAGG lists
-- a window's later slice first, as without ROLLUP. Outputs checked against Flink 2.3 (rows of one
-- window compared as a set).
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, s, SUM(p), LISTAGG(s) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, ROLLUP (k, s);
