-- Nexmark q5 over 200,000 generated events (20 s of event time). Checked against Flink 2.3: the
-- same events exported to CSV give these rows, in this order, under Flink's original q5 text (the
-- join of per-auction counts with the window maximum) and under ROW_NUMBER; no window has a tie.
-- Nexmark q5, hot items: the auctions with the most bids in each 10-second window, every 2
-- seconds. Flink's text joins the counts with their maximum per window; here the same answer is a
-- window Top-N with RANK, which keeps every auction tied for the top.
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'stream' = 'bid', 'events.num' = '200000');

SELECT auction, num, window_start, window_end
FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS r
  FROM (
    SELECT auction, COUNT(*) AS num, window_start, window_end
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
    GROUP BY auction, window_start, window_end
  )
)
WHERE r <= 1;
