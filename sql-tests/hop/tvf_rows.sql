-- A window TVF without aggregation returns every row once per window it is in, at once, with the
-- window's columns; nothing is late there (Flink does the same). A HOP row lists its windows
-- latest first, a CUMULATE row shortest first, as Flink does. The row at 2 s arrives after the
-- watermark (9 s) and still comes out. HOP 4 s / 2 s: a (1 s) is in [0, 4) and [-2, 2).
-- CUMULATE 6 s / 2 s: a is in [0, 2), [0, 4), [0, 6); c (7 s) in [6, 8), [6, 10), [6, 12).
CREATE TABLE t (
  ts TIMESTAMP(3),
  v STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/rows.csv',
  'format' = 'csv'
);

SELECT v, window_start, window_end, window_time
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND));

SELECT v, window_start, window_end, window_time
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND));
