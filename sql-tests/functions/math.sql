-- Numeric functions as Flink 2.3 has them. LN, LOG (natural, or LOG(base, x) = ln x / ln base),
-- LOG10, LOG2, EXP and SQRT are DOUBLE with Java's Math results: LN(0) is -Infinity, LN(-1) and
-- SQRT(-1) NaN. SIGN keeps the argument's type (a DECIMAL at its scale; -0.0 stays -0.0).
-- TRUNCATE(x [, d]) cuts toward zero, typed as ROUND is (DECIMAL(10, 3) to 2 digits is
-- DECIMAL(10, 2)). CEIL and FLOOR keep integers and DOUBLE, make DECIMAL(p, s) DECIMAL(p, 0).
-- BIN and HEX write an integer's 64-bit two's complement (HEX upper-case), HEX of a string its
-- UTF-8 bytes. GREATEST and LEAST take the arguments' common type and are NULL when any is NULL.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  id INT,
  i INT,
  b BIGINT,
  d DOUBLE,
  m DECIMAL(10, 3),
  s STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/mathfn.csv',
  'format' = 'csv',
  'csv.null-literal' = '_'
);

SELECT id,
       LN(d) AS ln_d,
       LOG(d) AS log_d,
       LOG(2, d) AS log2_d,
       LOG(d, 8) AS log_base_d,
       LOG10(d) AS log10_d,
       LOG2(i) AS log2_i,
       EXP(d) AS exp_d,
       SQRT(d) AS sqrt_d,
       LN(m) AS ln_m,
       SIGN(i) AS sign_i,
       SIGN(b) AS sign_b,
       SIGN(d) AS sign_d,
       SIGN(m) AS sign_m,
       TRUNCATE(d, 1) AS tr_d,
       TRUNCATE(d) AS tr_d0,
       TRUNCATE(m, 2) AS tr_m2,
       TRUNCATE(m) AS tr_m,
       TRUNCATE(m, -1) AS tr_m_neg,
       TRUNCATE(i, -1) AS tr_i_neg,
       TRUNCATE(b, -2) AS tr_b_neg,
       CEIL(d) AS ceil_d,
       FLOOR(d) AS floor_d,
       CEIL(m) AS ceil_m,
       FLOOR(m) AS floor_m,
       CEILING(i) AS ceil_i,
       FLOOR(b) AS floor_b,
       BIN(i) AS bin_i,
       BIN(b) AS bin_b,
       HEX(i) AS hex_i,
       HEX(b) AS hex_b,
       HEX(s) AS hex_s,
       PI() AS pi,
       GREATEST(i, b) AS gr_ib,
       GREATEST(i, m) AS gr_im,
       LEAST(d, i) AS le_di,
       GREATEST(i, 3, 50) AS gr_const,
       LEAST(s, 'b') AS le_s
FROM t;
