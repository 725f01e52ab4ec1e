-- A TUMBLE aggregation over session aggregation results (their window_time as rowtime), 3 s
-- gap, watermark ts - 1 s, keys a, b, c (spec §2, §3):
--   a: [1, 5.5) (1 s and 2.5 s), [12, 15), [25, 28); b: [2, 5), [9, 12), [14, 17);
--   c: [3, 6), [10, 13), [21, 24).
-- c@10 lifts the watermark from 2 s to 8 s: b [2, 5), a [1, 5.5) and c [3, 6) fire (their
-- window_times 4.999, 5.499, 5.999 s). c@21 lifts it from 11 s to 13 s: b [9, 12) and
-- c [10, 13) (11.999, 12.999 s). a@25 lifts it from 13 s to 20 s: a [12, 15) and b [14, 17)
-- (14.999, 16.999 s). The end fires c [21, 24) and a [25, 28).
-- The sessions fired by the three advances reach the TUMBLE in one chunk, each carrying the
-- watermark before the advance that fired it (2 s, 11 s, 13 s), so none is late there:
-- [0, 10) fires at its first row of 11 s, with 3 sessions of 4 rows; [10, 20) at the
-- watermark 20 s, with 4 sessions; [20, 30) at the end, with 2. Rows checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/windows_of_sessions.csv', 'format' = 'csv');

CREATE VIEW sessions AS
SELECT k, window_time AS wt, COUNT(*) AS n
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end, window_time;

SELECT window_start, window_end, COUNT(*) AS sessions, SUM(n) AS n
FROM TABLE(TUMBLE(TABLE sessions, DESCRIPTOR(wt), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
