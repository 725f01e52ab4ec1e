-- Operators whose state a checkpoint cannot keep yet are named before the
-- job starts; nothing is written (the sink's staged file is removed).
SET 'execution.checkpointing.dir' = 'never-written';

CREATE TABLE bids (ts TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier STRING,
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE sessions (item STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

INSERT INTO sessions
SELECT item, COUNT(*)
FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY item, window_start, window_end;
