-- Spec §3 numbers: DOUBLE prints as Java's Double.toString, both in results and in CAST(d AS STRING):
-- plain notation for 1e-3 <= |d| < 1e7, else scientific with 'E' (1.0E7, 1.0E-4, 9.99E-4), at least one
-- fraction digit, -0.0 kept, overflow to Infinity, and the smallest subnormal as 4.9E-324.
CREATE TABLE t (
  d DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/double_print.csv',
  'format' = 'csv'
);

SELECT d, CAST(d AS STRING) AS s, d * 10 AS d10
FROM t;
