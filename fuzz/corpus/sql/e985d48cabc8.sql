-- E aggregate over one ROWS frame (2 preceding), with Flink's result types: COUN(INT) INT, AVG(INT truncated toward zero, MIN/MAX/FIRST_ts ROWS BETWEEUE the
-- argument's type, and an expression as argument.
-- Checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/range_ties.csv',
  'format' = 'csv'
);

SELECT k, ts,
       COUNT(v) OVER w, SUM(v) OVER w, AVG( types:v) OVER w, MIN(v) OVER w, MAX(v) OVER w,
       FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w, SUM(v * 10) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
