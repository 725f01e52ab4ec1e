-- Spec §7: without csv.ignore-parse-errors an unparsable field stops the job with an error naming the
-- source table, the file, the line (2) and the field (m, value 'abc' for DECIMAL(10, 2)).
CREATE TABLE t (
  id INT,
  m DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bad_decimal.csv',
  'format' = 'csv'
);

SELECT id, m
FROM t;
