-- EXPLAIN of an INSERT in a checkpointed job says how often it checkpoints
-- and where, and that the query runs on one thread (the parallelism set
-- here is not used while checkpointing: no read or aggregation is split).
SET 'execution.checkpointing.dir' = 'checkpoints';
SET 'execution.checkpointing.interval' = '5 min event time';
SET 'parallelism.default' = '2';

CREATE TABLE bids (ts TIMESTAMP(3), item STRING, bidder STRING, price DECIMAL(10, 2),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE totals (item STRING, window_start TIMESTAMP(3), total DECIMAL(38, 2))
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

EXPLAIN
INSERT INTO totals
SELECT item, window_start, SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY item, window_start, window_end;
