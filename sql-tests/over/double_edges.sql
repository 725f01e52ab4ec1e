-- DOUBLE over a ROWS frame as Flink computes it, bit for bit (checked against Flink 2.3): SUM adds
-- and retracts one row at a time (so a NaN, once in, stays: NaN - NaN is NaN), and MIN/MAX order
-- values as Java's Double.compareTo does (-0.0 below 0.0, NaN above everything).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/double_edges.csv',
  'format' = 'csv'
);

SELECT k, ts, v, MIN(v) OVER w AS mn, MAX(v) OVER w AS mx, SUM(v) OVER w AS s
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
