-- Comparisons across types: INT, DECIMAL against a DECIMAL literal and against DOUBLE, INT against
-- DOUBLE, STRING (binary order, 'B' < 'b'), TIMESTAMP against a CAST literal; NULL operands give NULL;
-- WHERE keeps rows whose predicate is TRUE. A quoted CSV field may contain the delimiter.
CREATE TABLE t (
  name STRING,
  qty INT,
  price DECIMAL(10, 2),
  ratio DOUBLE,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/where_compare.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT name, qty = 3 AS q_eq, qty <> 3 AS q_ne, price = 2.5 AS p_eq, price >= ratio AS p_ge_r, qty < ratio AS q_lt_r,
       name < 'b' AS n_lt, ts >= CAST('2024-01-01 00:00:00' AS TIMESTAMP(3)) AS ts_ge
FROM t
WHERE ts < CAST('2024-01-02 00:00:00' AS TIMESTAMP(3));
