-- A regular (non-windowed) join of two streams would keep every row forever: rejected before the
-- job runs, pointing at the first side that is not a window TVF.
CREATE TABLE orders (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/regular_join_orders.csv',
  'format' = 'csv'
);

CREATE TABLE customers (
  k STRING,
  name STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/regular_join_customers.csv',
  'format' = 'csv'
);

SELECT o.k, c.name, o.v
FROM orders AS o
JOIN customers AS c ON o.k = c.k;
