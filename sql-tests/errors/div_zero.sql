-- Spec §7: integer division by zero is a runtime error that stops the job (it never panics and never
-- yields NULL or Infinity); the second row divides 7 by 0.
CREATE TABLE t (
  a INT,
  b INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/div_zero.csv',
  'format' = 'csv'
);

SELECT a, b, a / b AS q
FROM t;
