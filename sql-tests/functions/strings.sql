-- String functions as Flink 2.3 has them. SUBSTRING counts characters from 1: a start of 0 reads as
-- 1, a negative start counts from the end (-3 of 'hello' is 'llo'; past the front gives ''), a start
-- past the end gives '', a negative length NULL. CONCAT is NULL when any argument is; CONCAT_WS skips
-- NULL arguments and is NULL only for a NULL separator. TRIM strips the given set of characters
-- (default a space) from BOTH ends, or LEADING / TRAILING only. REPLACE replaces every occurrence.
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
       SUBSTRING(s FROM 2 FOR 3) AS from_for,
       SUBSTRING(s, 0, 2) AS zero_start,
       SUBSTRING(s, -3) AS from_end,
       SUBSTRING(s FROM n) AS col_start,
       SUBSTRING(s, 2, n) AS col_length,
       SUBSTRING(s, 20) AS past_end,
       CONCAT(s, '|', c) AS cat,
       CONCAT_WS('-', s, c, CAST(NULL AS STRING), 'z') AS ws,
       CONCAT_WS(c, 'x', 'y') AS ws_col_sep,
       TRIM(s) AS tr,
       TRIM(LEADING ' ' FROM s) AS ltr,
       TRIM(TRAILING 'lo' FROM s) AS rtr,
       TRIM(BOTH c FROM s) AS btr,
       REPLACE(s, 'l', 'LL') AS rep,
       REPLACE(s, c, '') AS rep_col
FROM t;
