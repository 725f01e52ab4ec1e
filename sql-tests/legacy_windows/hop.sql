-- Legacy group window HOP(ts, slide, size): slide first, then size (the window TVF's order too).
-- 10 s windows every 5 s, so each row is in two windows; HOP_START, HOP_END, HOP_ROWTIME read the
-- window, written after the key and in any order in GROUP BY. Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS wstart,
       HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS wend,
       HOP_ROWTIME(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS rt,
       k, COUNT(*) AS n, MAX(v) AS top
FROM t
GROUP BY k, HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND);
