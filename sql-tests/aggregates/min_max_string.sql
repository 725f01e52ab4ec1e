-- Spec §3 MIN/MAX over STRING: binary (code point) order, so uppercase sorts before lowercase,
-- a prefix before its extensions, digits compare as text ('10' < '9') and 'é' after 'z'; NULLs are
-- skipped and an all-NULL group gives NULL.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  s STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/min_max_string.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, MIN(s) AS lo, MAX(s) AS hi, COUNT(DISTINCT s) AS nd
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
