-- A watermark delay longer than the data spans: the watermark (max ts - 10 min) never reaches the
-- end of a 1 min window, so every window fires only because the input ends. On an unbounded
-- source none would have fired yet; the run says so.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/stuck.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, SUM(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, k;
