-- The bids of bids.sql, totalled per item in 10-second windows and written
-- to a folder, with a checkpoint every 4 rows read. Crash it and go on:
--
--   TIDEMARK_CRASH_AFTER_BATCHES=3 tidemark run --batch-size 4 examples/checkpointed.sql
--   tidemark run --resume examples/checkpointed.sql
--
-- The folder (out/totals/) then holds the parts committed at checkpoints,
-- which read in order are the rows an uninterrupted run writes.

SET 'execution.checkpointing.dir' = 'out/checkpoints';
SET 'execution.checkpointing.interval' = '4 rows';

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

CREATE TABLE totals (
  item         STRING,
  window_start TIMESTAMP(3),
  bids         BIGINT,
  volume       DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path'      = 'out/totals/',
  'format'    = 'csv'
);

INSERT INTO totals
SELECT item, window_start, COUNT(*), SUM(price)
FROM TABLE(
  TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, item;
