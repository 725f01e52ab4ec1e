-- A day window across a DST change is 23 hours (spec §2). America/Los_Angeles springs forward on
-- 2024-03-10 (PST, UTC-8, until 02:00; PDT, UTC-7, after), so the day [Mar 10, Mar 11) runs from
-- 08:00Z to 07:00Z the next day:
--   a (07:59Z = 23:59 Mar 9 PST) is in [Mar 9, Mar 10);
--   b (08:00Z = midnight Mar 10), c (12:00Z = 05:00 PDT) and d (06:59:59Z Mar 11 = 23:59:59 PDT)
--   are in [Mar 10, Mar 11), whose last instant is 06:59:59.999Z, shown as 23:59:59.999;
--   e (07:00Z Mar 11 = midnight Mar 11 PDT) is in [Mar 11, Mar 12).
-- Watermark ts - 1 s: [Mar 9, Mar 10) fires when c arrives; the others at the end of input.
SET 'table.local-time-zone' = 'America/Los_Angeles';

CREATE TABLE t (
  ts TIMESTAMP_LTZ(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/los_angeles.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, window_time, COUNT(*) AS n, LISTAGG(v, ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY))
GROUP BY window_start, window_end, window_time;
