-- Spec §2 time zones: for a TIMESTAMP_LTZ rowtime, windows are laid out on the wall clock of
-- table.local-time-zone. Under Asia/Kolkata (UTC+05:30) 1-hour windows start at local :00, i.e. at
-- UTC :30, and window_start/window_end print as local wall-clock TIMESTAMP(3) values.
SET 'table.local-time-zone' = 'Asia/Kolkata';

CREATE TABLE t (
  epoch_ms BIGINT,
  v INT,
  ts AS TO_TIMESTAMP_LTZ(epoch_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ltz_zone.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, window_time, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, window_time;
