-- Nexmark q11, user sessions: how many bids each bidder makes in a session that ends after 10
-- seconds without a bid.
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'stream' = 'bid', 'events.num' = '1000000');

SELECT bidder, COUNT(*) AS bid_count, window_start, window_end
FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
