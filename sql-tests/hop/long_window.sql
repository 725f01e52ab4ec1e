-- A HOP window of four slices or more is made of partial merges kept from the windows before it
-- (two stacks), and must give what merging its slices gives. 4 s windows sliding every 1 s, two
-- keys, watermark ts - 1 s; checked against Flink 2.3.
--   a@4 lifts the watermark to 3 s: [-3, 1), [-2, 2) and [-1, 3) fire. a@6.3 lifts it to 5.3 s:
--   [0, 4) fires with a: 1 2 and b: 10 20 (AVG 1 and 15), [1, 5) with b first (b@1.2 arrived
--   before a@2.1).
--   a@1.5 then arrives: all its windows have fired ([-2, 2) to [1, 5)), so it is dropped, 3.8 s
--   behind the watermark. b@4.8 is late for [1, 5) only, and counts in [2, 6), [3, 7), [4, 8).
--   a@9 lifts the watermark to 8 s: [2, 6), [3, 7), [4, 8) fire, so b@7.7 is late for [4, 8)
--   (b: 30 alone) and counts in [5, 9) to [7, 11).
--   a@12 fires up to [7, 11); the end of input fires the rest, [9, 13) holding 6 and 7 (AVG 6).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/long_window.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, MAX(v) AS hi,
       AVG(v) AS mean
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, k;
