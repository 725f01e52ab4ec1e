-- Everything Flink cannot express, each refused with a caret and a hint:
-- late-row and bad-record sinks, early firing, event-time state TTL,
-- lateness on SESSION and CUMULATE, tidemark's own connectors and options,
-- a file pattern, and the per-file watermarks of a folder of files.
CREATE TABLE bids (
  bidder STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv', 'csv.header' = 'true');

CREATE TABLE parts (
  bidder STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/parts', 'format' = 'csv');

CREATE TABLE pattern (bidder STRING) WITH ('connector' = 'filesystem', 'path' = 'data/*.csv', 'format' = 'csv');

CREATE TABLE typed (line STRING) WITH ('connector' = 'stdin', 'format' = 'csv');

CREATE TABLE auctions (id BIGINT) WITH ('connector' = 'nexmark', 'events' = '1000');

CREATE TABLE late (bidder STRING, ts TIMESTAMP(3), price INT) WITH ('connector' = 'blackhole');

SET 'table.exec.late-records.sink' = 'late';
SET 'table.exec.bad-records.sink' = 'late';
SET 'tidemark.emit.early-fire' = '5 s';
SET 'tidemark.state.ttl' = '1 h';
SET 'table.exec.emit.allow-lateness' = '3 s';

SELECT bidder, window_start, COUNT(*) AS n
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY bidder, window_start, window_end;

SELECT window_start, window_end, SUM(price) AS total
FROM TABLE(CUMULATE(TABLE parts, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
