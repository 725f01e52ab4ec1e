-- EXTRACT(unit FROM ts) is a BIGINT. WEEK is the ISO week (2024-12-31 is in week 1 of 2025), DOW
-- counts from Sunday = 1 (2024-03-03 is a Sunday) to Saturday = 7, DOY from 1, SECOND drops the
-- fraction; 1969-12-31 23:59:59.999 is a Wednesday in ISO week 1 of 1970.
-- Checked against Flink 2.3, with one deliberate difference: Flink reads a timestamp before 1970
-- with a fraction as the next whole second (1969-12-31 23:59:59.999 gives YEAR 1970, DAY 1, DOW 5);
-- tidemark extracts from the timestamp itself.
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
       EXTRACT(YEAR FROM ts) AS y,
       EXTRACT(QUARTER FROM ts) AS q,
       EXTRACT(MONTH FROM ts) AS mo,
       EXTRACT(WEEK FROM ts) AS w,
       EXTRACT(DAY FROM ts) AS d,
       EXTRACT(HOUR FROM ts) AS h,
       EXTRACT(MINUTE FROM ts) AS mi,
       EXTRACT(SECOND FROM ts) AS s,
       EXTRACT(DOW FROM ts) AS dow,
       EXTRACT(DOY FROM ts) AS doy
FROM t;
