-- EXPLAIN of a window Top-N: a filter on the rank (rownum <= 3, through the projection) tells the
-- ranking its limit, so each window keeps only the rows that may still rank within 3 (and the
-- first row of each partition, which places its partition in the output); RANK() < 3 keeps 2.
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

EXPLAIN
SELECT * FROM (
  SELECT item, price, window_start,
    ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
) WHERE rownum <= 3;

EXPLAIN
SELECT * FROM (
  SELECT item, price, window_start,
    RANK() OVER (PARTITION BY window_start, window_end, supplier_id ORDER BY price DESC) AS r
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
) WHERE r < 3 AND price > 1;
