-- FLOOR(ts TO unit) and CEIL(ts TO unit) keep the timestamp's type. Weeks start on Sunday, as in
-- Flink. A value already on a boundary is its own ceiling (2024-03-06 00:00 to DAY).
-- Checked against Flink 2.3, with two deliberate differences where Flink is wrong: its CEIL to
-- WEEK, MONTH, QUARTER and YEAR looks only at the date, so CEIL(2024-03-03 13:45:30.250 TO WEEK) is
-- 2024-03-03 00:00 in Flink, earlier than the value itself (tidemark: 2024-03-10); and it reads
-- 1969-12-31 23:59:59.999 as 1970-01-01 for MONTH, QUARTER and YEAR, so FLOOR(.. TO MONTH) is
-- 1970-01-01 in Flink, after the value (tidemark: 1969-12-01).
CREATE TABLE t (
  id INT,
  s STRING,
  c STRING,
  n INT,
  b BIGINT,
  d DOUBLE,
  m DECIMAL(10, 3),
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/funcs.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id, ts,
       FLOOR(ts TO SECOND) AS f_s,
       CEIL(ts TO SECOND) AS c_s,
       FLOOR(ts TO MINUTE) AS f_mi,
       CEIL(ts TO HOUR) AS c_h,
       FLOOR(ts TO DAY) AS f_d,
       CEIL(ts TO DAY) AS c_d,
       FLOOR(ts TO WEEK) AS f_w,
       CEIL(ts TO WEEK) AS c_w,
       FLOOR(ts TO MONTH) AS f_mo,
       CEIL(ts TO MONTH) AS c_mo,
       FLOOR(ts TO QUARTER) AS f_q,
       CEIL(ts TO QUARTER) AS c_q,
       FLOOR(ts TO YEAR) AS f_y,
       CEIL(ts TO YEAR) AS c_y
FROM t;
