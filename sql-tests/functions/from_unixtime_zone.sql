-- FROM_UNIXTIME writes the session zone's wall clock, and Z and X its offset there (X with one
-- letter only the hours); DATE_FORMAT of a TIMESTAMP_LTZ writes the wall clock with java.time's
-- letters, and DATE_FORMAT of a STRING writes in UTC whatever the session zone. Asia/Kathmandu was
-- +05:30 until 1986, +05:45 since.
-- Outputs checked against Flink 2.3.
SET 'table.local-time-zone' = 'Asia/Kathmandu';

CREATE TABLE s (id INT, n BIGINT) WITH (
  'connector' = 'filesystem',
  'path' = 'data/unixtime.csv',
  'format' = 'csv'
);

SELECT id,
       FROM_UNIXTIME(n, 'yyyy-MM-dd HH:mm:ss Z X XX XXX') AS wall,
       DATE_FORMAT(TO_TIMESTAMP_LTZ(n, 0), 'QQQ yyyy-MM-dd HH:mm B') AS ltz,
       DATE_FORMAT(FROM_UNIXTIME(n), 'yyyy-MM-dd HH:mm:ss Z') AS text
FROM s
WHERE n >= 0;
