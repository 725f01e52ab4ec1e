-- Allowed lateness on a HOP of four slices (4 s windows every 1 s), late firing on, delay 0 s,
-- lateness 3 s, watermark ts - 1 s: a late row re-fires the windows it is in that are not
-- cleaned up, newest first, and the merges kept for later windows are built again without
-- losing it. Outputs checked against Flink 2.3.
--   a@1.5 arrives at watermark 5.3 s: [-2, 2) is cleaned up (1.999 + 3 s), so [1, 5), [0, 4)
--   and [-1, 3) re-fire for a (sums 10, 8, 8). b@4.8 re-fires [1, 5) for b (10 20 30) and
--   counts in [2, 6) to [4, 8) when they fire. b@7.7 at watermark 8 s re-fires [4, 8) (30 40).
SET 'table.exec.emit.allow-lateness' = '3 s';
SET 'table.exec.emit.late-fire.enabled' = 'true';
SET 'table.exec.emit.late-fire.delay' = '0 s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/long_hop.csv',
  'format' = 'csv'
);

SELECT k, HOP_START(ts, INTERVAL '1' SECOND, INTERVAL '4' SECOND) AS wstart,
       HOP_END(ts, INTERVAL '1' SECOND, INTERVAL '4' SECOND) AS wend,
       COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, MAX(v) AS hi
FROM t
GROUP BY HOP(ts, INTERVAL '1' SECOND, INTERVAL '4' SECOND), k;
