-- DECIMAL printing keeps the declared scale (1 -> 1.00, 0.5 -> 0.50, no exponent, no negative zero);
-- CSV input with more fraction digits is rounded HALF_UP to the column scale (1.005 -> 1.01); arithmetic
-- results print with their own Flink scale (+ 0.001 -> scale 3).
CREATE TABLE t (
  m DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/decimal_print.csv',
  'format' = 'csv'
);

SELECT m, CAST(m AS STRING) AS s, -m AS neg, m + 0.001 AS plus, m * 10 AS times10
FROM t;
