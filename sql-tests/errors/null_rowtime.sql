-- Spec §7: a row whose rowtime is NULL (empty field read as NULL via csv.null-literal) cannot be placed in
-- time; without csv.ignore-parse-errors it is a malformed row and stops the job naming source, file,
-- line 2 and the rowtime field ts.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/null_rowtime.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
