-- LAG's default must have the value's type, as Flink asks: an INT default for a DOUBLE is refused
-- with the CAST to write.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, LAG(d, 1, 0) OVER (PARTITION BY k ORDER BY ts) FROM t;
