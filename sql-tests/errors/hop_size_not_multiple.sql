-- HOP's size must be an integral multiple of its slide (spec §2): a planning error that points at the argument.
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

SELECT window_start, SUM(price) FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '5' MINUTES)) GROUP BY window_start, window_end;
