-- LIKE, IS [NOT] DISTINCT FROM and IS [NOT] TRUE / FALSE / UNKNOWN, as Flink 2.3 answers them
-- (checked against it). The strings: a\\b (two backslashes), ab, a%b, aXb, A_B, NULL, '' and
-- 'line' (whose INT does not parse, so i is NULL).
-- LIKE: '%' is any run of characters, '_' any one; without ESCAPE a backslash is a plain
-- character, so 'a\%b' is a, backslash, anything, b and matches only a\\b; 'a!%b' ESCAPE '!'
-- matches a%b only; case counts (A_B is not LIKE 'a%'). A NULL string gives NULL.
-- IS DISTINCT FROM treats NULL as a value: NULL is distinct from 'ab' and not distinct from
-- NULL. IS TRUE / IS FALSE are never NULL: a NULL comparison is neither TRUE nor FALSE, and
-- IS UNKNOWN.
CREATE TABLE s (v STRING, i INT) WITH (
  'connector' = 'filesystem',
  'path' = 'data/like.csv',
  'format' = 'csv',
  'csv.null-literal' = 'N',
  'csv.ignore-parse-errors' = 'true'
);

SELECT i,
  v LIKE 'a\b', v LIKE 'a\%b', v LIKE 'a_b', v LIKE 'a%', v NOT LIKE 'A%',
  v LIKE 'a!%b' ESCAPE '!', v LIKE '%', v LIKE '',
  v IS DISTINCT FROM 'ab', v IS NOT DISTINCT FROM CAST(NULL AS STRING),
  (i > 3) IS TRUE, (v = 'ab') IS NOT TRUE, (v = 'ab') IS FALSE, (v = 'ab') IS NOT FALSE,
  (v = 'ab') IS UNKNOWN
FROM s;
