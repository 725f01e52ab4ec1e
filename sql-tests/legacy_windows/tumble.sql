-- Legacy group window TUMBLE (Flink's GROUP BY TUMBLE(ts, size)): the same computation as the
-- TUMBLE window TVF. TUMBLE_START and TUMBLE_END are the window's bounds, TUMBLE_ROWTIME its end
-- minus 1 ms (a rowtime attribute); k is an ordinary key. 5 s windows, watermark ts - 2 s: each
-- window fires when a row lifts the watermark past its end, keys in first-row order; the end of
-- input fires the last one. Outputs checked against Flink 2.3.
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

SELECT k,
       TUMBLE_START(ts, INTERVAL '5' SECOND) AS wstart,
       TUMBLE_END(ts, INTERVAL '5' SECOND) AS wend,
       TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS rt,
       COUNT(*) AS n, SUM(v) AS total
FROM t
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), k;
