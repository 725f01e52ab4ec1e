-- Parse error: the WHERE clause ends after a comparison operator; the statement is rejected with a
-- syntax error that gives the position.
CREATE TABLE t (
  k STRING,
  v INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/syntax.csv',
  'format' = 'csv'
);

SELECT k, v
FROM t
WHERE v >;
