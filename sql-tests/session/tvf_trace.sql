-- The trace of the SESSION TVF of tvf_rows.sql: a FIRE and a CLEANUP per session (its rows go out
-- and are freed at once), and a LATE line for c's row at 1 s, whose session would end behind the
-- watermark.
SET 'tidemark.trace' = 'true';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bridge.csv',
  'format' = 'csv'
);

SELECT k, v, window_start, window_end
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND));
