-- Nexmark q7 over 200,000 generated events. Checked against Flink 2.3 on the same events exported
-- to CSV: Flink's original q7 text (bids joined with the 10 s window maximum) gives these 3 rows.
-- Nexmark q7, highest bid: the bids with the highest price in each 10-second window. Flink's text
-- joins bids with the window maximum; here it is a window Top-N with RANK (ties all kept).
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'stream' = 'bid', 'events.num' = '200000');

SELECT auction, price, bidder, dateTime, extra
FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS r
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
)
WHERE r <= 1;
