-- Time functions on TIMESTAMP_LTZ work on the session zone's wall clock (Asia/Shanghai, UTC+8):
-- 2024-03-02 16:30Z is 2024-03-03 00:30 there, a Sunday; 15:59:59.999Z is still 2024-03-02 23:59:59.999.
-- FLOOR and CEIL keep TIMESTAMP_LTZ and are shown in the zone; UNIX_TIMESTAMP reads text in the zone
-- (2024-03-03 00:00 in Shanghai is 1709395200). Outputs checked against Flink 2.3.
SET 'table.local-time-zone' = 'Asia/Shanghai';

CREATE TABLE t (
  id INT,
  l TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ltz.csv',
  'format' = 'csv'
);

SELECT id, l,
       DATE_FORMAT(l, 'yyyy-MM-dd HH:mm:ss.SSS') AS local_text,
       EXTRACT(DAY FROM l) AS d,
       EXTRACT(DOW FROM l) AS dow,
       EXTRACT(HOUR FROM l) AS h,
       FLOOR(l TO DAY) AS f_d,
       CEIL(l TO HOUR) AS c_h,
       FLOOR(l TO MONTH) AS f_mo,
       UNIX_TIMESTAMP('2024-03-03 00:00:00') AS epoch
FROM t;
