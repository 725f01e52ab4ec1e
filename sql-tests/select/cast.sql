-- CAST between types: numbers, DECIMAL, TIMESTAMP and BOOLEAN to STRING (Flink's text forms), DOUBLE and
-- DECIMAL to INT truncating toward zero, STRING to INT/DOUBLE, DOUBLE and DECIMAL to a narrower DECIMAL
-- rounding HALF_UP (2.125 -> 2.13, -2.125 -> -2.13), and TRY_CAST of valid values.
CREATE TABLE t (
  id INT,
  s STRING,
  d DOUBLE,
  m DECIMAL(10, 3),
  ts TIMESTAMP(3),
  f BOOLEAN
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/cast.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT id,
       CAST(id AS STRING) || '|' AS id_s,
       CAST(d AS STRING) AS d_s,
       CAST(m AS STRING) AS m_s,
       CAST(ts AS STRING) AS ts_s,
       CAST(f AS STRING) AS f_s,
       CAST(d AS INT) AS d_i,
       CAST(d AS BIGINT) AS d_b,
       CAST(d AS DECIMAL(10, 2)) AS d_m,
       CAST(m AS DECIMAL(10, 2)) AS m_m,
       CAST(m AS INT) AS m_i,
       CAST(id AS DOUBLE) AS id_d,
       CAST(s AS INT) AS s_i,
       TRY_CAST(s AS DOUBLE) AS s_d,
       CAST('1.5e3' AS DOUBLE) AS lit_d
FROM t;
