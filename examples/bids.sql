-- Bids on an auction, counted in 10-second tumbling windows per item.
--
-- The watermark trails the newest bid by 3 seconds, so a bid may arrive up
-- to 3 s out of order and still count. Two bids below arrive later than
-- that: the run summary on stderr reports it as a late row.

CREATE TABLE bids (
  bid_time TIMESTAMP(3),
  item     STRING,
  bidder   STRING,
  price    DECIMAL(10, 2),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '3' SECOND
) WITH (
  'connector' = 'filesystem',
  'path'      = 'data/bids.csv',
  'format'    = 'csv'
);

SELECT
  item,
  window_start,
  window_end,
  COUNT(*)                 AS bids,
  MAX(price)               AS top_price,
  SUM(price)               AS volume,
  LISTAGG(bidder, ' ')     AS bidders
FROM TABLE(
  TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, item;
