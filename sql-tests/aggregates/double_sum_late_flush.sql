-- A late row still makes Flink's local buffer flush at the next window boundary, and that changes
-- how DOUBLE additions are grouped. 2 s TUMBLE, watermark ts - 3 s. The row at 1.5 s is late (its
-- window [0 s, 2 s) fired at watermark 2 s); at the next boundary the watermark crosses (3.999 s) its
-- flush sends b's partial 0.7 for [4 s, 6 s) to the global side, where it waits because that window
-- is not due. When [4 s, 6 s) fires, the next partial 3.0 joins it first: SUM = 0.1 + (0.7 + 3.0) =
-- 3.8000000000000003, where adding one at a time would give 3.8. Flink prints the same.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  d DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/double_sum_late_flush.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, SUM(d), AVG(d), COUNT(*), MIN(d), MAX(d)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, k;
