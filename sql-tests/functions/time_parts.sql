-- YEAR, QUARTER, MONTH, WEEK (ISO), DAYOFMONTH, DAYOFWEEK (1 is Sunday), DAYOFYEAR, HOUR, MINUTE and
-- SECOND of a timestamp are BIGINT, as EXTRACT of the unit; of a TIMESTAMP_LTZ they read the session
-- zone's wall clock. FROM_UNIXTIME(seconds [, format]) writes the instant in the session zone,
-- 'yyyy-MM-dd HH:mm:ss' by default. TIMESTAMPDIFF and TIMESTAMPADD of TIMESTAMP_LTZ values count
-- on the UTC instant, whatever the zone (a DAY is 24 hours across the DST change of 2024-03-10).
-- Outputs checked against Flink 2.3, with the deliberate difference EXTRACT has: before 1970 Flink
-- reads a timestamp with a fraction as the next second (row 3: YEAR 1970, DAYOFMONTH 1) and the
-- wall clock of a TIMESTAMP_LTZ west of UTC wrongly (rows 2 and 3: HOUR -5, DAYOFMONTH 1); tidemark
-- gives the calendar's values. Rows 1 and 5 are Flink's exactly.
SET 'table.local-time-zone' = 'America/New_York';

CREATE TABLE t (
  id INT,
  ts TIMESTAMP(3),
  e BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/timefn.csv',
  'format' = 'csv',
  'csv.null-literal' = '_'
);

SELECT id,
       YEAR(ts) AS y,
       QUARTER(ts) AS q,
       MONTH(ts) AS mon,
       WEEK(ts) AS w,
       DAYOFMONTH(ts) AS dom,
       DAYOFWEEK(ts) AS dow,
       DAYOFYEAR(ts) AS doy,
       HOUR(ts) AS h,
       MINUTE(ts) AS mi,
       SECOND(ts) AS sec,
       HOUR(TO_TIMESTAMP_LTZ(e, 0)) AS ltz_hour,
       DAYOFMONTH(TO_TIMESTAMP_LTZ(e, 0)) AS ltz_day,
       FROM_UNIXTIME(e) AS fu,
       FROM_UNIXTIME(e, 'EEE dd/MM/yy hh:mm a') AS fu_fmt,
       TIMESTAMPADD(DAY, 1, TO_TIMESTAMP_LTZ(e, 0)) AS ltz_next_day,
       TIMESTAMPDIFF(HOUR, TO_TIMESTAMP_LTZ(e, 0), TO_TIMESTAMP_LTZ(e + 86400, 0)) AS ltz_hours
FROM t;
