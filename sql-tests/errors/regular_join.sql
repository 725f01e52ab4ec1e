-- Planning error in tidemark's first slice: a regular (non-windowed, non-interval) join of two streams
-- is rejected before the job runs.
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
