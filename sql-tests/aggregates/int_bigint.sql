-- Spec §3 result types and NULLs for INT and BIGINT: SUM(INT) is INT, SUM(BIGINT) BIGINT, MIN/MAX keep
-- the type, AVG(INT)/AVG(BIGINT) are integers truncated toward zero (-4.5 -> -4, -2.5 -> -2), NULLs are
-- skipped, and an all-NULL group gives NULL for SUM, MIN, MAX and AVG.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  i INT,
  b BIGINT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/int_bigint.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, SUM(i), MIN(i), MAX(i), AVG(i), SUM(b), MIN(b), MAX(b), AVG(b)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
