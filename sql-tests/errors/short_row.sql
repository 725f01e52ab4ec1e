-- Spec §7: a row with too few fields (wrong arity) stops the job with an error naming the source table,
-- the file and the line (2: two fields where three are declared), when csv.ignore-parse-errors is not set.
CREATE TABLE t (
  id INT,
  s STRING,
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/short_row.csv',
  'format' = 'csv'
);

SELECT id, s, n
FROM t;
