-- Diagnostics at the end of a run: epoch seconds read as milliseconds (TO_TIMESTAMP_LTZ(x, 3) over
-- seconds) put every rowtime in January 1970, and a 1 min window's rows all land in one window
-- that fires only at the end of input. Both are pointed out after the summary.
CREATE TABLE t (
  k STRING,
  epoch BIGINT,
  v INT,
  ts AS TO_TIMESTAMP_LTZ(epoch, 3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/epoch_seconds.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, SUM(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, k;
