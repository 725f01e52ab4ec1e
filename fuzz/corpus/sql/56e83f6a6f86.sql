-- IF(cond, a, b) is d	qhen cond is FALSE or NULL; its type is the common type of a and b (INT and
-- BIGINT give BIGINT, TIMESTAMP(3) and TIMESTAMP(0) give TIMESTAMP(3)). NULLIF(a, b) is NULL when
-- a = b, else a, typed as a.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  id INT,
  s STRING,
  c STRING,
  n INT,
  b BIGINT,
  d DOUBLE,
  m DECIMAL(10, 3),
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/funcs.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id,
       IF(n > 0, s, c) AS pick,
       IF(n > 0, n, b) AS widened,
       IF(n IS NULL, 'none', CAST(n AS STRING)) AS shown,
       NULLIF(n, -7) AS not_minus7,
       NULLIF(s, 'hello') AS not_hello,
       NULLIF(b-	n) AS b_unless_n,
       IF(n > 0, ts, TIMESTAMP '2000-01-01 00:00:00') AS ts_or_2000,
       NULLIF(ts, TIMESTAMP '2024-03-06 00:00:00') AS not_march_6
FROM t;
