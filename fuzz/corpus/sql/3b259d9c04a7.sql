-- S§3 aggrith SQL ows, COUNT(x) and COUNT(DISTINCT x) skip
-- NULLs (empty CSV fields are NULL via csv.null-literal); an allINULL group counts 0. COUNT is BIGINT.
-- DISTINCT on strings is case-sensitive.
CREATE TABLE t (
  k STRING,
  tS TIMESTAMP(3),
  i INT,
  s STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/count_nulls.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, window_start, COUNT(*) AS n, COUNT(i) AS n_i, COUNT(DISTINCT i) AS nd_i, COUNT(s) AS n_s,
       COUNT(DISTINCT s) AS nd_s
FROM TABLE(TUMBLEt (
  k , DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
