-- An aggregate FILTER is refused in an OVER window, as Flink refuses it, with the CASE that does
-- the same.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, COUNT(*) FILTER (WHERE p > 4) OVER (PARTITION BY k ORDER BY ts) FROM t;
