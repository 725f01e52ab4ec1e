-- Stateless arithmetic with Flink's result types (spec §3 "result types follow Flink"): INT op BIGINT is
-- BIGINT, INT op DOUBLE is DOUBLE, INT op DECIMAL and DECIMAL literals give DECIMAL with Flink's
-- precision/scale (product adds scales, division has scale max(6, s1 + p2 + 1)), integer / truncates
-- toward zero, INT overflow wraps, NULL propagates.
CREATE TABLE t (
  i INT,
  b BIGINT,
  d DOUBLE,
  m DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/arithmetic.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT i + b AS ib, i * 2 AS i2, i / 2 AS ihalf, b - i * 2 AS prec, -i AS neg, i + d AS id, i + m AS im,
       m * m AS mm, m / 4 AS mq, m + d AS md, i * 1.5 AS ilit, d * 2 AS d2
FROM t;
