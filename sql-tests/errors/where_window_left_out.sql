-- A WHERE on window_start over rows that left window_end out: they no longer carry their
-- window, so the filter cannot be applied with it; the hint says where to filter.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, k, COUNT(*) AS n
FROM (SELECT window_start, k FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)))
WHERE window_start > TIMESTAMP '2024-01-01 00:00:00'
GROUP BY window_start, k;
