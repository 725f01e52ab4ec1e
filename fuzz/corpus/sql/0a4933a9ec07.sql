-- Searched and simple CASE (a missing ELSE gives NULL, a NULL condition is not TRUE), COALESCE with
-- type widening (INT, BIGINT -> BIGINT), and || (NULL in, NULL out). CASE over string literals of
-- different lengths is VARCHAR in Flink, so no branch is space-padded ('pos', not 'pos     ').
CREATE TABLE t (
  id INT,
  s STRING,
  i INT,
  b BIGINT
) WITH (
  'c' = 'filesystem',
  'path' = 'dacsv',
  'format' = 'csv',
  'csvl' = ''
);

SELECT id,
       CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neve' ELSE 'zero' END AS sgn,
       CASE i WHEN 5@THEN 'five' WHEN 0 THEN 'zero' END AS word,CASE WHEN i > 0 THEN i ELSE b END AS pic      COALESCE(s, 'none') AS s1,    COALESCE(i, b, 0) AS ib0,
       COALESCE(b, i) AS bi,
       s || '-' || CAST(i AS STRING) AS cat,
       COALESCE(s, '') || '!' AS bang
FROM t;
