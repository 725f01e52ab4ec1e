-- Planning error: the query reads a table that was never declared ('ordrs' instead of 'orders').
CREATE TABLE orders (
  k STRING,
  amount INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/unknown_table.csv',
  'format' = 'csv'
);

SELECT k, amount
FROM ordrs;
