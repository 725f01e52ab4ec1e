-- Rows that cannot be read or placed in time are never lost silently (spec §7): with
-- 'csv.ignore-parse-errors' they are skipped and counted, and 'table.exec.bad-records.sink'
-- receives each with its source, file, line, raw text and the reason, in file order among the
-- results. Line 2's rowtime does not parse and line 4's is empty (NULL): no rowtime. Line 6 has
-- a field too many (dropped, as Flink does). Line 8 never closes its quote. Line 3's 'abc' only
-- becomes NULL and line 5 is padded: both rows are kept.
SET 'table.exec.bad-records.sink' = 'bad_rows';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bad_records_sink.csv',
  'format' = 'csv',
  'csv.null-literal' = '',
  'csv.ignore-parse-errors' = 'true'
);

CREATE TABLE bad_rows (source STRING, file STRING, line BIGINT, raw STRING, error STRING)
WITH ('connector' = 'print', 'print-identifier' = 'bad');

SELECT k, window_start, window_end, COUNT(*) AS n, COUNT(v) AS n_v, SUM(v) AS total
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
