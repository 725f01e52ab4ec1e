-- Spec §7 (Beyond Flink): with 'csv.ignore-parse-errors' = 'true' a row whose rowtime is unparsable
-- ('not-a-time') or NULL (empty field) cannot be placed in time and is skipped and counted instead of
-- failing the job; a bad non-rowtime field still becomes NULL and a short row is padded.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ignore_parse_errors_rowtime.csv',
  'format' = 'csv',
  'csv.null-literal' = '',
  'csv.ignore-parse-errors' = 'true'
);

SELECT k, window_start, window_end, COUNT(*) AS n, COUNT(v) AS n_v, SUM(v) AS total
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
