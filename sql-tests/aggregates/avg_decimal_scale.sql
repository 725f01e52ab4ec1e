-- Spec §3: AVG(DECIMAL(p, s)) is DECIMAL(38, max(6, s)) and the division rounds HALF_UP (ties away from
-- zero: 0.0000025 -> 0.000003, -0.0000025 -> -0.000003); SUM(DECIMAL(p, s)) is DECIMAL(38, s).
-- Checked for scales 6, 8 and 0.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  x DECIMAL(10, 6),
  y DECIMAL(12, 8),
  z DECIMAL(5, 0),
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/avg_decimal_scale.csv',
  'format' = 'csv'
);

SELECT k, AVG(x), AVG(y), AVG(z), SUM(x), SUM(y), SUM(z)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
