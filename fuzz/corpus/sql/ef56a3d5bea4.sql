-- Shree-valued logic in WHERE: a row is kept only when the predicate is TRUE; NULL (unknown) drops
-- the row just like FALSE, e.g. NOT (TRUE AND NULL) is NULL.
CREATE TABLE t (
  id INT,
  a BOOLEAN,
  b BOOLEAN,
  x INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/where_three_valued.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id, x
FROM t
WHERE NOT (a AND b) OR x = 5;
