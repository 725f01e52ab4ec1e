-- In the autumn a 1-hour window spans the repeated hour: 2 real hours (spec §2).
-- America/Los_Angeles falls back on 2024-11-03 at 02:00 PDT to 01:00 PST:
--   a (07:30Z = 00:30 PDT) is in [00:00, 01:00);
--   b (08:30Z = 01:30 PDT) and c (09:30Z = 01:30 PST) are both in [01:00, 02:00), which ends at
--   02:00 PST = 10:00Z, so its last instant 09:59:59.999Z shows as 01:59:59.999;
--   d (10:30Z = 02:30 PST) is in [02:00, 03:00).
-- Watermark = ts: [00:00, 01:00) fires when b arrives, [01:00, 02:00) when d arrives.
SET 'table.local-time-zone' = 'America/Los_Angeles';

CREATE TABLE t (
  ts TIMESTAMP_LTZ(3),
  v STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/autumn.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, window_time, COUNT(*) AS n, LISTAGG(v, ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, window_time;
