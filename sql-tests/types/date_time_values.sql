-- DATE and TIME columns and literals: read from csv (a month and day of one digit are taken),
-- printed as Flink prints them (TIME(3) with its fraction up to the last digit that is not zero,
-- at least one: 23:59:59.0), cast to and from TIMESTAMP and STRING (text with a time after the
-- day is read as that day; TRY_CAST of a day that does not exist is NULL), shifted by day-time
-- intervals (a DATE by whole days, cut toward zero; a TIME around the clock), compared, and
-- taken apart by EXTRACT and YEAR, DAYOFWEEK, ... Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  dt DATE,
  tm TIME,
  tm3 TIME(3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/days.csv', 'format' = 'csv');

SELECT dt, tm, tm3, CAST(tm3 AS TIME(1)), CAST(tm3 AS TIME), CAST(tm3 AS STRING),
  CAST(ts AS DATE), CAST(ts AS TIME), CAST(dt AS TIMESTAMP(3)), CAST(dt AS TIMESTAMP_LTZ(3)),
  CAST(tm3 AS TIMESTAMP(3)), CAST(dt AS STRING), CAST(CAST(ts AS STRING) AS DATE),
  CAST(' 2024-3-1 ' AS DATE), TRY_CAST('2024-02-30' AS DATE), CAST('1:2:3' AS TIME), TRY_CAST('24:00:00' AS TIME),
  DATE '2024-03-01', TIME '12:34:56', TIME '12:34:56.5',
  dt + INTERVAL '1' DAY, dt + INTERVAL '25' HOUR, dt - INTERVAL '1' HOUR, dt - INTERVAL '25' HOUR,
  tm + INTERVAL '12' HOUR, tm - INTERVAL '13' HOUR, tm3 + INTERVAL '0.5' SECOND,
  dt < DATE '2024-03-01', dt = CAST(ts AS DATE), tm >= TIME '12:00:00', tm3 > tm,
  EXTRACT(YEAR FROM dt), EXTRACT(MONTH FROM dt), EXTRACT(DAY FROM dt), QUARTER(dt), DAYOFWEEK(dt),
  DAYOFYEAR(dt), WEEK(dt), HOUR(tm), MINUTE(tm), SECOND(tm), DATE_FORMAT(CAST(dt AS TIMESTAMP(3)), 'yyyy/MM/dd'),
  TO_DATE('2024-03-01'), TO_DATE('03/01/2024', 'MM/dd/yyyy'), TO_DATE('garbage')
FROM t;
