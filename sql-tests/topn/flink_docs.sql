-- Window Top-N on a window aggregation, Flink's documentation example: the top 3 suppliers by
-- total price in each 10-minute window. [08:00, 08:10): supplier1 6.00 (4 + 2), supplier4 5.00,
-- supplier2 4.00 (supplier3's 2.00 is 4th). [08:10, 08:20): supplier5 6.00, supplier2 3.00,
-- supplier3 2.00 (supplier1's 1.00 is 4th). Each window's rows go out when it ends.
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

SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM (
    SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt
    FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end, supplier_id
  )
) WHERE rownum <= 3;
