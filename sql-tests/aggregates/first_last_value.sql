-- Spec §3 FIRST_VALUE / LAST_VALUE: NULL inputs are skipped (a NULL in first or last position does not
-- win; an all-NULL group gives NULL, as Flink's aggregates do), and "first"/"last" follow arrival
-- order within the window, not rowtime order (g4 arrives 32 s, 33 s, 31 s).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  s STRING,
  i INT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/first_last_value.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, FIRST_VALUE(s) AS first_s, LAST_VALUE(s) AS last_s, FIRST_VALUE(i) AS first_i,
       LAST_VALUE(i) AS last_i, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
