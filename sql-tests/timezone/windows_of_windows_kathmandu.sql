-- A window aggregation over another's results, over a TIMESTAMP_LTZ rowtime in Asia/Kathmandu
-- (UTC+5:45): the first aggregation lays its 12-hour HOP windows (6-hour slide) on the local
-- wall clock; the second aggregates per the windows its rows carry, each firing when the
-- watermark passes the instant of its local window_end - 1 ms (window_time was not kept, so it
-- is computed from window_end in the session zone). Local times: a Jan 1 08:45, b 21:15,
-- c 22:15, d Jan 2 21:44:59.999, e 21:45.
--   [Jan 1 00:00, 12:00) a; [06:00, 18:00) a; [12:00, Jan 2 00:00) b c; [18:00, 06:00) b c;
--   [Jan 2 12:00, Jan 3 00:00) d e; [Jan 2 18:00, Jan 3 06:00) d e.
-- b's watermark (15:29:59Z, 21:14:59 local) fires the first two on both levels; d's
-- (15:59:58.999Z) the next two; the end of input the rest. The trace shows watermarks as UTC
-- instants and windows on the local wall clock: the second level names its windows by their
-- local window_end. Rows checked against Flink 2.3.
SET 'table.local-time-zone' = 'Asia/Kathmandu';
SET 'tidemark.trace' = 'true';

CREATE TABLE t (
  ts TIMESTAMP_LTZ(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/shanghai.csv', 'format' = 'csv');

SELECT window_start, window_end, COUNT(*) AS vs, SUM(n) AS n
FROM (
  SELECT window_start, window_end, v, COUNT(*) AS n
  FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '6' HOUR, INTERVAL '12' HOUR))
  GROUP BY window_start, window_end, v
)
GROUP BY window_start, window_end;
