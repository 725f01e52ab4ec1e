-- ROUND(x [, d]) rounds HALF_UP (away from zero on .5): INT, BIGINT and DOUBLE keep their type, a
-- DOUBLE is rounded on its shortest decimal form (2.675 -> 2.68, 1.005 -> 1.01, as
-- BigDecimal.valueOf); ROUND(DECIMAL(p, s), d) is DECIMAL(1 + p - s + d, d) when it drops digits
-- (DECIMAL(10, 3) to 2 digits is DECIMAL(10, 2)), DECIMAL(1 + p - s, 0) for d < 0. MOD takes exact
-- numbers, has the sign of the dividend and the type of the divisor. POWER is DOUBLE.
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
       ROUND(d) AS rd,
       ROUND(d, 1) AS rd1,
       ROUND(d, 2) AS rd2,
       ROUND(m, 2) AS rm2,
       ROUND(m) AS rm,
       ROUND(m, -1) AS rm_neg,
       ROUND(n, -1) AS rn_neg,
       ROUND(b) AS rb,
       ROUND(2.5) AS half,
       ROUND(-2.5) AS neg_half,
       MOD(n, 3) AS mod3,
       MOD(n, -3) AS mod_neg3,
       MOD(n, b) AS mod_col,
       MOD(b, 2) AS mod_bigint_int,
       MOD(m, 2) AS mod_dec,
       POWER(d, 2) AS sq,
       POWER(n, b) AS pow_col,
       POWER(2, 0.5) AS root2
FROM t;
