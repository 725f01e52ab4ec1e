-- Spec §7: a runtime expression error stops the job with an error naming the value: CAST('abc' AS INT)
-- on the second row fails (TRY_CAST would give NULL instead).
CREATE TABLE t (
  id INT,
  s STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/cast_runtime.csv',
  'format' = 'csv'
);

SELECT id, CAST(s AS INT) + 1 AS n
FROM t;
