-- Casts between numbers never fail, as in Flink: a BIGINT narrows to INT by wrapping, a DOUBLE
-- saturates and truncates toward zero, a value too large for its DECIMAL becomes NULL,
-- BOOLEAN is 1 or 0. DECIMAL division keeps full precision even when the scaled dividend passes 38
-- digits. The last row ends with a delimiter, which Flink's CSV reader takes as no extra field.
CREATE TABLE t (
  b BIGINT,
  x DOUBLE,
  d DECIMAL(10, 2),
  flag BOOLEAN
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/numeric_casts.csv',
  'format' = 'csv'
);

SELECT CAST(b AS INT), TRY_CAST(b AS INT), CAST(x AS INT), CAST(x AS BIGINT), CAST(x AS DECIMAL(10, 2)),
       CAST(d AS DECIMAL(5, 1)), CAST(d AS INT), d / CAST(1 AS DECIMAL(38, 10)), CAST(flag AS DECIMAL(3, 1)),
       CAST(CAST(flag AS INT) AS BOOLEAN), CAST(d AS DOUBLE)
FROM t;
