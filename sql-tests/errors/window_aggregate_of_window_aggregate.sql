-- Flink's window aggregation after a window aggregation (grouping the first one's rows by their
-- window_start and window_end, without a second TVF) is refused as not supported yet, with the
-- cascade that tidemark runs: a second TVF over the first one's window_time.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, window_end, SUM(c) FROM (SELECT window_start, window_end, k, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k) GROUP BY window_start, window_end;
