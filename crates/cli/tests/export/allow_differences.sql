-- args: --allow-differences --selects-to blackhole
-- With --allow-differences the same constructs are exported, each statement
-- whose results will differ marked with a `-- tidemark:` comment, and the
-- SELECT's rows go to a blackhole table.
SET 'tidemark.trace' = 'true';
SET 'execution.checkpointing.interval' = '1000 rows';
CREATE TABLE bids (
  bidder STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

SET 'tidemark.emit.early-fire' = '5 s';
SET 'table.exec.emit.allow-lateness' = '3 s';

SELECT bidder, window_start, window_end, COUNT(*) AS n
FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY bidder, window_start, window_end;

EXPLAIN ANALYZE SELECT * FROM bids;
RESET 'tidemark.trace';
