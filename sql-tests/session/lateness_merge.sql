-- Allowed lateness on SESSION (Beyond Flink on window TVFs): 3 s gap, watermark ts - 1 s,
-- lateness 20 s (a session is cleaned up at end - 1 ms + 20 s).
--   a@1, a@2 make [1, 5); a@20 lifts the watermark to 19 s, so [1, 5) fires (2 rows, 3).
--   a@1.5 falls inside [1, 5): its bounds do not change, so it is updated: -U, +U (3 rows, 18).
--   a@6 opens [6, 9), already behind the watermark: it fires at once (+I).
--   a@4 bridges [1, 5) and [6, 9): both fired results are retracted (-D) and the merged
--   [1, 9) fires at once (+I, 5 rows, 28).
--   a@17 touches the open [20, 23): [17, 23), not fired.
--   a@8 extends [1, 9) to [1, 11): -D [1, 9), +I [1, 11).
--   b@30 lifts the watermark to 29 s: [17, 23) fires (17 20).
--   a@12 opens [12, 15), behind the watermark: +I at once. a@14 bridges [12, 15) and [17, 23):
--   both retracted, [12, 23) fires (12 14 17 20).
--   a@0 joins [1, 11), cleaned up only at 30.999 s: -D [1, 11), +I [0, 11).
--   b@5 would open [5, 8), whose cleanup (27.999 s) is behind the watermark: late, dropped.
--   End of input: b [30, 33).
SET 'table.exec.emit.allow-lateness' = '20 s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_merge.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
