-- TIMESTAMPDIFF(unit, t1, t2) is an INT: the whole units from t1 to t2. SECOND to WEEK truncate
-- toward zero (-1.9 s is -1) and a count past INT wraps, as Flink narrows its BIGINT. MONTH counts
-- calendar months with the month end clamped (Jan 31 to Feb 29 is a month), one less when it lands
-- on t2's day at an earlier time of day; that correction is one-sided, so going back from
-- 03-01 00:00:00.5 to 01-01 00:00 is -3 months. QUARTER and YEAR are months / 3 and / 12.
-- TIMESTAMPADD(unit, n, ts) keeps the type of ts; MONTH, QUARTER and YEAR clamp to the month's
-- last day and count in INT (YEAR by 2147483647 wraps to -1 year). A NULL argument gives NULL.
-- (Counts that leave years 0000-9999 are kept out: Flink prints such timestamps as garbage.)
-- TIMESTAMP_LTZ values count on their UTC instant, whatever the session zone.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  id INT,
  t1 TIMESTAMP(3),
  t2 TIMESTAMP(3),
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/tsdiff.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id,
       TIMESTAMPDIFF(SECOND, t1, t2) AS sec_n,
       TIMESTAMPDIFF(MINUTE, t1, t2) AS min_n,
       TIMESTAMPDIFF(HOUR, t1, t2) AS hrs,
       TIMESTAMPDIFF(DAY, t1, t2) AS dys,
       TIMESTAMPDIFF(WEEK, t1, t2) AS wks,
       TIMESTAMPDIFF(MONTH, t1, t2) AS mons,
       TIMESTAMPDIFF(QUARTER, t1, t2) AS qtrs,
       TIMESTAMPDIFF(YEAR, t1, t2) AS yrs,
       TIMESTAMPDIFF(month, t2, t1) AS months_back,
       TIMESTAMPDIFF(HOUR, CAST(t1 AS TIMESTAMP_LTZ(3)), CAST(t2 AS TIMESTAMP_LTZ(3))) AS ltz_hours,
       TIMESTAMPADD(SECOND, n, t1) AS add_secs,
       TIMESTAMPADD(MINUTE, small, t1) AS add_mins,
       TIMESTAMPADD(HOUR, small, t1) AS add_hours,
       TIMESTAMPADD(DAY, small, t1) AS add_days,
       TIMESTAMPADD(WEEK, small, t1) AS add_weeks,
       TIMESTAMPADD(MONTH, small, t1) AS add_months,
       TIMESTAMPADD(QUARTER, small, t1) AS add_quarters,
       TIMESTAMPADD(YEAR, n, t1) AS add_years,
       TIMESTAMPADD(MONTH, CAST(small AS BIGINT), CAST(t1 AS TIMESTAMP_LTZ(3))) AS add_ltz_months
FROM (SELECT *, CASE WHEN n BETWEEN -1000 AND 1000 THEN n END AS small FROM t);
