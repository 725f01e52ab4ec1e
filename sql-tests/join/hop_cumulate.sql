-- Window joins over HOP and CUMULATE: a row is in several windows and meets its partners in each.
-- The watermark lags a minute, so every window fires at end of input, in order of window end.
-- HOP, 10 s windows every 5 s: L1 (00:01, a) is in [-5, 5) and [0, 10); L2 (00:06, a) in [0, 10)
-- and [5, 15); L3 (00:12, b) in [5, 15) and [10, 20). R1 (00:03, a) in [-5, 5), [0, 10); R2
-- (00:08, b) in [0, 10), [5, 15); R3 (00:11, b) in [5, 15), [10, 20). Inner join on k:
--   [23:59:55, 00:05): L1-R1;  [00:00, 00:10): L1-R1, L2-R1;
--   [00:05, 00:15): L3-R2, L3-R3;  [00:10, 00:20): L3-R3.
-- CUMULATE, 5 s steps up to 10 s: L1 in [0, 5), [0, 10); L2 in [0, 10); L3 in [10, 15), [10, 20);
-- R1 in [0, 5), [0, 10); R2 in [0, 10); R3 in [10, 15), [10, 20):
--   [00:00, 00:05): L1-R1;  [00:00, 00:10): L1-R1, L2-R1;  [00:10, 00:15): L3-R3;
--   [00:10, 00:20): L3-R3.
CREATE TABLE l (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/hop_left.csv', 'format' = 'csv');
CREATE TABLE r (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/hop_right.csv', 'format' = 'csv');

SELECT L.window_start, L.window_end, L.id, R.id
FROM (SELECT * FROM TABLE(HOP(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;

SELECT L.window_start, L.window_end, L.id, R.id
FROM (SELECT * FROM TABLE(CUMULATE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
