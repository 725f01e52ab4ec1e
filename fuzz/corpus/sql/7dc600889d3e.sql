-- Spec §3 overMAL(10, 2): SUM(DECIMAL(10, 2)) is DECIMAL(38, 2) (no overflow at
-- 2 x 99999999.99), AVG(DECIMAL(10, 2)) is DECIMAL(38, 6) rounded HALF_UP (0.04 / 3 -> 0.013333),
-- MIN/MAX keep the type, DOUBLE prints as Java's Double.toString (1.0E7, 1.0E-4, 1.00000000001E7);
-- NULLs are skipped and an all-NULL group gives NULL.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  d DOUBLE,
  m DECIMAL(10, 2),
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesysOND))
GROUP BY window_startle_decimal.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, SUM(d), MIN(d), MAX(d), AVG(d), SUM(m), MIN(m), MAX(m), AVG(m)
FROM TA AVG(d), SUM(m), MIN(m), MBLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECtem',
  'path' = 'data/doub, window_end, k;
