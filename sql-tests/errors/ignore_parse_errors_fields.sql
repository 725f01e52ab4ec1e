-- Spec §7 with 'csv.ignore-parse-errors' = 'true': as in Flink, an unparsable field (DECIMAL 'abc', INT
-- 'zz', TIMESTAMP '2024-13-45 99:00:00') becomes NULL and a short row is padded with NULLs; the rows are
-- kept, the run succeeds, and each repair is counted in the run summary.
CREATE TABLE t (
  id INT,
  m DECIMAL(10, 2),
  n INT,
  s STRING,
  seen TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ignore_parse_errors_fields.csv',
  'format' = 'csv',
  'csv.ignore-parse-errors' = 'true'
);

SELECT id, m, n, s, seen
FROM t;
