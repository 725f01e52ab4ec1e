-- DOUBLE SUM and AVG over ROWS and RANGE frames retract the row leaving the frame before adding the
-- new one, as Flink does, so the last bits match Flink 2.3 exactly (0.29999999999999993 where a
-- fresh left-to-right sum of the same three values gives 0.3).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/double_sums.csv',
  'format' = 'csv'
);

SELECT k, ts, v, SUM(v) OVER w AS s, AVG(v) OVER w AS a, MIN(v) OVER w AS m
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);

SELECT k, ts, v, SUM(v) OVER w AS s, AVG(v) OVER w AS a, MIN(v) OVER w AS m
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW);
