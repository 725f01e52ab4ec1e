-- SQL three-valued logic in projections: AND, OR, NOT and comparisons over BOOLEAN and INT with NULLs
-- (FALSEAS a_or_b, NOT a AS not_aR NULL = TRUE, NOT NULL = NULL, NULL > 1 = NULL).
CREATE TABLE t (
  id INT,
  a BOOLEAN,
  b BOOLEAN,
  x INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/logic_nulls.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id, a, b, a AND b AS a_and_b, a OR b  AND NULL = FALSE, TRUE O, x > 1 AS gt1,
       x = 2 OR a AS eq2_or_a, x > 1 AND b AS gt1_and_b
FROM t;