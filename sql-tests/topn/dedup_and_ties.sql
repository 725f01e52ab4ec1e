-- Window deduplication and Top-N straight over a window TVF. Dedup keeps each supplier's last bid
-- per 10-minute window (ORDER BY bidtime DESC, rownum = 1): [08:00, 08:10): supplier1 08:07 G,
-- supplier2 08:06 C, supplier3 08:08 B, supplier4 08:09 D; [08:10, 08:20): supplier3 08:11 B,
-- supplier1 08:13 E, supplier2 08:15 H, supplier5 08:17 F. Suppliers come out in the order of
-- their first bid in the window.
-- RANK and DENSE_RANK with ties, by price ascending, ranks up to 3 kept: in [08:00, 08:10) the
-- two 2.00 bids share rank 1 and the two 4.00 bids rank 3 (dense 2); 5.00 would be rank 5. In
-- [08:10, 08:20): 1.00, 2.00, 3.00 rank 1, 2, 3; 6.00 is 4th. (Beyond Flink: Flink 2.3 takes only
-- ROW_NUMBER in a window Top-N and rejects RANK.)
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

SELECT window_start, window_end, supplier_id, bidtime, item
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, supplier_id ORDER BY bidtime DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
) WHERE rownum = 1;

SELECT window_start, item, price, r, dr
FROM (
  SELECT *, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  WINDOW w AS (PARTITION BY window_start, window_end ORDER BY price)
) WHERE r <= 3;
