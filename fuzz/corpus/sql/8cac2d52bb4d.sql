-- A window's DESCRIPTORmust be a time attribute: a planning error that points at the argument.
CREATE TABLE bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(price), INTERVAL '2' MINUTES)) GROUP BY window_start, window_end;
