-- Spec §7: a row with too many fields (wrong arity) stops the job with an error naming the source table,
-- the file and the line (2: four fields where three are declared); extra fields are not dropped silently.
CREATE TABLE t (
  id INT,
  s STRING,
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/long_row.csv',
  'format' = 'csv'
);

SELECT id, s, n
FROM t;
