-- EXPLAIN shows, under each window operator, where its rowtime and watermark come from, when a
-- window fires and is cleaned up (with the allowed lateness), where late rows go and how state is
-- laid out (spec §6). A cascade's outer window runs on the inner aggregation's window_time.
SET 'table.exec.emit.allow-lateness' = '3 s';
SET 'table.exec.late-records.sink' = 'late_bids';
SET 'tidemark.display.late-records' = 'true';

CREATE TABLE bids (
  item STRING,
  price INT,
  bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

CREATE TABLE late_bids (item STRING, price INT, bidtime TIMESTAMP(3), late_reason STRING)
WITH ('connector' = 'blackhole');

EXPLAIN
SELECT item, window_start, window_end, SUM(price)
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE))
WHERE price > 0
GROUP BY window_start, window_end, item;

EXPLAIN
SELECT item, window_start, window_end, COUNT(*)
FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, item;

RESET 'table.exec.emit.allow-lateness';

CREATE VIEW per_minute AS
SELECT item, window_time AS minute_time, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, window_time, item;

EXPLAIN
SELECT window_start, window_end, SUM(total)
FROM TABLE(CUMULATE(TABLE per_minute, DESCRIPTOR(minute_time), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

EXPLAIN
SELECT item, window_start FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE));
