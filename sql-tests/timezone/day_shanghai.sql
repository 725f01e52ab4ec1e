-- Day windows over a TIMESTAMP_LTZ rowtime start at local midnight of 'table.local-time-zone'
-- (spec §2), not at UTC midnight. In Asia/Shanghai (UTC+8) local midnight is 16:00 UTC:
--   a (03:00Z = 11:00 local, Jan 1) and b (15:30Z = 23:30 local, Jan 1) are in [Jan 1, Jan 2);
--   c (16:30Z Jan 1 = 00:30 local, Jan 2) and d (15:59:59.999Z Jan 2 = 23:59:59.999 local) in
--   [Jan 2, Jan 3); e (16:00Z Jan 2 = midnight local, Jan 3) in [Jan 3, Jan 4).
-- window_start and window_end are local wall-clock TIMESTAMP(3); window_time is a
-- TIMESTAMP_LTZ shown in the session zone. Watermark ts - 1 s: [Jan 1, Jan 2) fires when c
-- arrives (the watermark, 16:29:59Z, has passed the window's last instant, 15:59:59.999Z). e's
-- watermark (15:59:59Z Jan 2) is still before [Jan 2, Jan 3)'s last instant, so that window and
-- [Jan 3, Jan 4) fire at the end of input.
SET 'table.local-time-zone' = 'Asia/Shanghai';

CREATE TABLE t (
  ts TIMESTAMP_LTZ(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/shanghai.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, window_time, COUNT(*) AS n, LISTAGG(v, ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY))
GROUP BY window_start, window_end, window_time;
