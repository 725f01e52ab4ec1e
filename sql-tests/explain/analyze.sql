-- EXPLAIN ANALYZE prints the plan, runs the query (its rows go nowhere)
-- and shows what each operator did, in the order rows flow: rows in and
-- out, windows fired, late rows. The bids of the README: all 18 pass the
-- filter; the 10-second windows fire 4 times and emit 10 rows; the row of
-- 09:00:08 arrives when the watermark is at 09:00:16.25, after its window
-- fired, and is dropped.
-- (`tidemark run` also shows the state each operator held and the time.)
CREATE TABLE bids (
  bid_time TIMESTAMP(3),
  item STRING,
  bidder STRING,
  price DECIMAL(10, 2),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '3' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

EXPLAIN ANALYZE
SELECT item, window_start, COUNT(*) AS bids
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
WHERE price > 1
GROUP BY window_start, window_end, item;
