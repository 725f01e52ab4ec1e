-- A print table shows rows on standard output, which cannot be taken back
-- to a checkpoint: a checkpointed job must write files.
SET 'execution.checkpointing.dir' = 'never-written';

CREATE TABLE bids (ts TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier STRING,
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE shown (item STRING, n BIGINT) WITH ('connector' = 'print');

INSERT INTO shown
SELECT item, COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY item, window_start, window_end;
