-- STRING to integer casts accept what Flink accepts: surrounding spaces are trimmed, a leading '+' is
-- allowed, and a fractional part is truncated ('1.5' -> 1, '-12.9' -> -12) rather than rejected.
CREATE TABLE t (
  s STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/cast_string_quirks.csv',
  'format' = 'csv'
);

SELECT '[' || s || ']' AS txt, CAST(s AS INT) AS i, CAST(s AS BIGINT) AS b, CAST(s AS DOUBLE) AS d,
       CAST(s AS DECIMAL(5, 2)) AS m
FROM t;
