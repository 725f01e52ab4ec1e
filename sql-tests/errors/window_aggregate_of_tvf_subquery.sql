-- A window aggregation over a subquery that filters a window TVF's rows is refused as not supported
-- yet, with the form that does the same: the WHERE in the aggregating SELECT.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, SUM(p) FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE p > 4) GROUP BY window_start, window_end, k;
