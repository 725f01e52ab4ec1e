-- Spec §1/§2: a TIMESTAMP_LTZ(3) rowtime from a computed column TO_TIMESTAMP_LTZ(epoch_ms, 3), session
-- zone UTC. window_start/window_end are TIMESTAMP(3) wall-clock times in the session zone; window_time
-- keeps the LTZ type. The row at epoch 1704067201000 arrives after [00,05) fired and is late.
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE t (
  k STRING,
  epoch_ms BIGINT,
  v INT,
  ts AS TO_TIMESTAMP_LTZ(epoch_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ltz.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, window_time, COUNT(*) AS cnt, SUM(v) AS total
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, window_time, k;
