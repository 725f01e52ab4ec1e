-- Columns come out in the order they are declared, computed ones where
-- they are written (as Flink's SELECT * gives them), not after the
-- columns read from the file. The file holds id, ts, amount.
CREATE TABLE orders (
  id INT,
  doubled AS amount * 2,
  ts TIMESTAMP(3),
  second_of AS EXTRACT(SECOND FROM ts),
  amount INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/declared_order.csv',
  'format' = 'csv'
);
SELECT * FROM orders;
DESCRIBE orders;
SELECT window_start, SUM(doubled) AS doubled, MAX(second_of) AS last_second
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
