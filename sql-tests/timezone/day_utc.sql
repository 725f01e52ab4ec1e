-- The same rows as day_shanghai.sql in the default session zone, UTC: day windows start at UTC
-- midnight, so a, b and c (Jan 1, 03:00Z to 16:30Z) share [Jan 1, Jan 2), and d and e share
-- [Jan 2, Jan 3). d lifts the watermark to 15:59:58.999Z on Jan 2, past [Jan 1, Jan 2)'s last
-- instant, so that window fires before e arrives; [Jan 2, Jan 3) fires at the end of input.
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
