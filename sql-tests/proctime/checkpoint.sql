-- A checkpointed job refuses windows over processing time before it
-- starts: their results depend on the clock, so a resumed run could not
-- repeat them (nothing is written).
SET 'execution.checkpointing.dir' = 'never-written';

CREATE TABLE bid (
  bidder BIGINT,
  price INT,
  p_time AS PROCTIME()
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

CREATE TABLE counts (bidder BIGINT, bid_count BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

INSERT INTO counts
SELECT bidder, COUNT(*)
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
