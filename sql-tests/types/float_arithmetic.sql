-- FLOAT arithmetic with Flink's result types: FLOAT with an integer or a FLOAT is FLOAT (in
-- 4-byte precision: 0.1 * 0.1 is 0.010000001), FLOAT with DOUBLE takes the left operand's type
-- (f + d is FLOAT, d + f DOUBLE), FLOAT with a DECIMAL is DOUBLE; comparisons are in DOUBLE (a
-- FLOAT 0.1 is not the DECIMAL 0.1); casts to integers saturate through INT; NaN sorts as
-- Java's Float.compare. Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  f FLOAT,
  d DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/float_values.csv', 'format' = 'csv');

SELECT k, f, d,
  f + d, d + f, f * d, f * f, f / 3, f / 0, f + 1, 1 + f, f + CAST(1.5 AS DECIMAL(3, 1)), -f,
  f = 0.1, f = CAST(0.1 AS FLOAT), f > d, f < 1,
  CAST(f AS INT), CAST(f AS TINYINT), CAST(f AS DECIMAL(10, 2)), CAST(d AS FLOAT), CAST(f AS BOOLEAN),
  ROUND(f, 1), FLOOR(f), ABS(f), COALESCE(f, d), CASE WHEN k = 'a' THEN f ELSE CAST(0 AS FLOAT) END
FROM t;
