-- TRY_CAST (spec §7) gives NULL instead of failing: unparsable text, the empty string, out-of-range
-- INT/BIGINT, and DECIMAL values that overflow the target precision after HALF_UP rounding to its scale
-- (999.995 -> 1000.00 does not fit DECIMAL(5, 2)); valid values convert normally.
CREATE TABLE t (
  s STRING,
  m STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/try_cast.csv',
  'format' = 'csv'
);

SELECT '[' || s || ']' AS txt, TRY_CAST(s AS INT) AS i, TRY_CAST(s AS BIGINT) AS b, TRY_CAST(s AS DOUBLE) AS d,
       '[' || m || ']' AS txt_m, TRY_CAST(m AS DECIMAL(5, 2)) AS m2
FROM t;
