-- A SELECT sent to a print table takes the query's column names, made
-- unique as Flink makes them (both sides' `bidder` become bidder and
-- bidder0), and its time attributes (each side's ts and window_time) cast
-- to plain timestamps: Flink writes at most one time attribute into a
-- table.
CREATE TABLE l (
  bidder STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE r (
  bidder STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

SELECT L.bidder, R.bidder, L.ts, L.window_start, L.window_time
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND))) R
ON L.bidder = R.bidder AND L.window_start = R.window_start AND L.window_end = R.window_end;
