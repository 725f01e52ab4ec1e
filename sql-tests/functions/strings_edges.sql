-- Edge cases of the string functions, over one row of columns so that nothing is folded at
-- planning: LOCATE's start below 1 and an empty needle (always 1); REGEXP of an empty regex
-- (FALSE), of a regex that does not compile (FALSE) and REGEXP_REPLACE with one (NULL); a
-- backslash replacement is literal; OVERLAY past the end leaves the text, FOR 0 or a negative
-- length replaces the rest; an empty padding is NULL; TRANSLATE with an empty, repeated or NULL
-- `from`/`to` (NULL counts as ''); INITCAP leaves non-ASCII letters alone; REVERSE keeps an emoji
-- whole; ASCII of an emoji is its first byte, signed; LTRIM/RTRIM strip spaces, not tabs or NBSP.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (e STRING, h STRING, a STRING, p STRING, z INT, m INT, three INT, four INT, ten INT, five INT, two INT) WITH (
  'connector' = 'filesystem', 'path' = 'data/strfn_edges.csv', 'format' = 'csv');
SELECT LOCATE('l', h, z) AS l0, LOCATE('l', h, m) AS lm, LOCATE('', h, three) AS le3, LOCATE('', h, ten) AS le10, LOCATE('', h, five + 1) AS le6, LOCATE('', h, z) AS le0,
 REGEXP(a, '') AS r1, REGEXP('', 'x*') AS r2, REGEXP(a, p) AS r3, REGEXP_REPLACE(a, p, 'x') AS r4, REGEXP_REPLACE(a, 'b', '\\') AS r5,
 OVERLAY(a PLACING e FROM four) AS o1, OVERLAY(a PLACING e FROM two FOR m) AS o2, OVERLAY(a PLACING e FROM three FOR five) AS o3, OVERLAY(a PLACING e FROM two FOR z) AS o4,
 LPAD(h, two, '') AS lp, RPAD(h, ten, '') AS rp, LEFT(CAST(NULL AS STRING), two) AS lnull,
 TRANSLATE(h, 'l', '') AS t1, TRANSLATE(h, '', 'x') AS t2, TRANSLATE(h, 'll', 'xy') AS t3, TRANSLATE(h, CAST(NULL AS STRING), 'x') AS t4, TRANSLATE(h, 'l', CAST(NULL AS STRING)) AS t5,
 INITCAP(CAST('ǆa ßa ﬁx' AS STRING)) AS ic, REVERSE(CAST('a😀b' AS STRING)) AS rv, ASCII(CAST('😀' AS STRING)) AS asc, REPEAT(a, m) AS rpm,
 LTRIM(CONCAT(CHR(9), 'a')) AS lt, RTRIM(CONCAT('a', CHR(160))) AS rt, CHAR_LENGTH(LTRIM(CONCAT(CHR(9), 'a'))) AS ltl
FROM t;
