-- SUM(DISTINCT x) of a DOUBLE over a bounded frame is refused: Flink's last bits depend on the
-- order distinct values come and leave, which tidemark's frames do not keep.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, SUM(DISTINCT d) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
