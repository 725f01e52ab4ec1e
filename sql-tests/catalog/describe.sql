-- DESCRIBE: columns with types, nullability, key, computed expressions,
-- the rowtime and its watermark, then the connector options; a view's
-- columns as its query gives them.
CREATE TABLE orders (
  order_id BIGINT NOT NULL,
  ts TIMESTAMP(3),
  amount DECIMAL(10, 2),
  note VARCHAR(20),
  tax AS amount * 0.2,
  pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'orders.csv',
  'format' = 'csv',
  'csv.field-delimiter' = ';'
);
CREATE VIEW big_orders AS SELECT order_id, amount, ts FROM orders WHERE amount > 100;
DESCRIBE orders;
DESC big_orders;
DESCRIBE order;
