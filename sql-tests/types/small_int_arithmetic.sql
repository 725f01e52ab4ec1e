-- TINYINT and SMALLINT columns: arithmetic wraps as Java's byte and short (127 + 1 is -128),
-- the result types are Flink's (TINYINT + TINYINT is TINYINT, TINYINT * SMALLINT is SMALLINT,
-- SMALLINT * INT is INT, TINYINT % SMALLINT has the divisor's type), comparisons widen, and
-- casts narrow by wrapping (300 as TINYINT is 44) or, from a DOUBLE, through INT (1e10 as TINYINT
-- is -1). Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ti TINYINT,
  si SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/small_ints.csv', 'format' = 'csv');

SELECT k, ti, si,
  ti + ti, ti - CAST(1 AS TINYINT), ti * si, si * si, si * 100000, -ti, ti / 3, ti % 3, si % CAST(7 AS TINYINT),
  ti < si, ti = 127, si > 1000,
  CAST(si AS TINYINT), CAST(si * 10 AS SMALLINT), CAST(ti AS DOUBLE) / 2, CAST(ti AS DECIMAL(5, 2)),
  CAST(ti AS STRING), CAST(CAST(si AS STRING) AS SMALLINT), CAST(1e10 AS TINYINT), CAST(-1.9e0 AS SMALLINT),
  ABS(ti), ROUND(si, -2), COALESCE(ti, si), GREATEST(ti, si), CASE WHEN k = 'a' THEN ti ELSE si END
FROM t;
