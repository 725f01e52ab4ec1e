-- With checkpointing on, a query's rows would go to standard output, which
-- a resumed run could only show again: only INSERT INTO is checkpointed.
SET 'execution.checkpointing.dir' = 'never-written';

CREATE TABLE bids (ts TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier STRING,
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

SELECT item, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY item, window_start, window_end;
