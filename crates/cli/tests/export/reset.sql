-- args: --selects-to client
-- RESET gives Flink's defaults back, which are not tidemark's: after it the
-- session zone (UTC) and a watermark after every row are set again.
SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');
RESET 'table.local-time-zone';
SELECT * FROM t;
RESET;
SELECT k FROM t;
