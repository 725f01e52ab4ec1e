-- DATE_FORMAT(ts, pattern) writes a timestamp with a Java date pattern: text in single quotes is
-- literal and '' is a quote; single letters are not padded (M, d, H, h); a is AM/PM, EEE the day's
-- short name, D the day of year; text is read as a timestamp, NULL when it is not one.
-- UNIX_TIMESTAMP(text [, pattern]) reads text (by default
-- yyyy-MM-dd HH:mm:ss, text after the pattern ignored) in the session zone as seconds since 1970;
-- text that does not parse gives -9223372036854775808, as in Flink.
-- Outputs checked against Flink 2.3.
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

SELECT id,
       DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm') AS minutes,
       DATE_FORMAT(ts, 'yyyy-MM-dd''T''HH:mm:ss.SSS') AS iso,
       DATE_FORMAT(ts, 'dd/MM/yy h:mm a') AS short_pm,
       DATE_FORMAT(ts, 'EEE, d MMM yyyy') AS day_name,
       DATE_FORMAT(ts, 'EEEE MMMM D') AS long_names,
       DATE_FORMAT(ts, 'hh ''o''''clock'' a') AS quoted,
       DATE_FORMAT(ts, 'M/d H:m:s') AS unpadded,
       DATE_FORMAT(CAST(ts AS STRING), 'yyyy/MM/dd') AS from_text,
       DATE_FORMAT(s, 'yyyy') AS text_not_a_time,
       UNIX_TIMESTAMP(CAST(ts AS STRING)) AS epoch,
       UNIX_TIMESTAMP(DATE_FORMAT(ts, 'yyyy/MM/dd'), 'yyyy/MM/dd') AS epoch_day,
       UNIX_TIMESTAMP(s) AS not_a_time
FROM t;
