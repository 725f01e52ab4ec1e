-- A window fires when it ends on both inputs: the join's watermark is the lower of the two. With
-- 1 s watermark delays and rows interleaved by the lower watermark, the order is L1 R1 L2 R2 L3
-- R3 R4 L4 R5 L5. After L3 the left input is at 00:11 but the right one at 00:07, so [00:00,
-- 00:10) waits: it fires after R4 lifts the right input to 00:12 (the join to 00:11), before L4.
-- Its rows: L1 (a) meets R1 and R2 (both a), L2 (b) meets R3 (b, out of order but on time).
-- R5 (00:04, a) comes when the join's watermark is 00:12: its window has ended, so it is late,
-- shown inline, traced and counted. Then the right input ends and no longer holds the watermark
-- back: L5 lifts it to 00:30, firing [00:10, 00:20): L3 (a) without a partner, L4 (b) with R4.
-- [00:30, 00:40) fires at end of input with L5 alone.
SET 'tidemark.display.late-records' = 'true';
SET 'tidemark.trace' = 'true';

CREATE TABLE l (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/min_left.csv', 'format' = 'csv');
CREATE TABLE r (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/min_right.csv', 'format' = 'csv');

SELECT COALESCE(L.window_start, R.window_start) AS window_start, L.id, L.k, R.id, R.k
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
FULL OUTER JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
