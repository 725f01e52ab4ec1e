-- Time functions on DATE and TIME as Flink takes them: TIMESTAMPDIFF counts between two days'
-- midnights (an INT), TIMESTAMPADD of a DATE is a DATE (a month added to 2024-02-29 is
-- 2024-03-29), FLOOR and CEIL of a DATE to a unit stay DATEs and of a TIME stay TIMEs.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  dt DATE,
  tm TIME,
  tm3 TIME(3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/days.csv', 'format' = 'csv');

SELECT dt, tm,
  TIMESTAMPDIFF(DAY, dt, DATE '2024-03-10'), TIMESTAMPDIFF(MONTH, dt, DATE '2024-03-10'),
  TIMESTAMPADD(DAY, 1, dt), TIMESTAMPADD(MONTH, 1, dt),
  FLOOR(dt TO MONTH), CEIL(dt TO MONTH), FLOOR(tm TO HOUR)
FROM t;
