-- Processing-time windows (Nexmark q12's shape): `p_time AS PROCTIME()` is the engine clock when a
-- row is read, and a TUMBLE over it fires as the clock passes a window's end. The fake clock makes
-- that deterministic: row n is read at 00:00:00 + n × 4 s, so rows 0-2 (0 s, 4 s, 8 s) fall in
-- [0 s, 10 s), rows 3-4 (12 s, 16 s) in [10 s, 20 s) and rows 5-6 (20 s, 24 s) in [20 s, 30 s).
-- [0 s, 10 s) fires when the clock reaches row 3 (12 s); [10 s, 20 s) at row 5 (20 s); the end of
-- input fires the last window (Beyond Flink, which may end a bounded job without firing it).
SET 'tidemark.clock' = 'fake';
SET 'tidemark.clock.start' = '2024-01-01 00:00:00';
SET 'tidemark.clock.step' = '4 s';

CREATE TABLE bid (
  bidder BIGINT,
  price INT,
  p_time AS PROCTIME()
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT bidder, COUNT(*) AS bid_count, SUM(price), window_start, window_end
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
