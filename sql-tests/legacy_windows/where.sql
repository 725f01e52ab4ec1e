-- WHERE before a legacy group window filters rows before they are windowed and may read any
-- input column, the rowtime too: odd values, or b's rows after 10:00:10. No key: one row per
-- window. Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT TUMBLE_START(ts, INTERVAL '10' SECOND) AS wstart, COUNT(*) AS n, SUM(v) AS total
FROM t
WHERE v % 2 = 1 OR k = 'b' AND ts > TIMESTAMP '2024-01-01 10:00:10'
GROUP BY TUMBLE(ts, INTERVAL '10' SECOND);
