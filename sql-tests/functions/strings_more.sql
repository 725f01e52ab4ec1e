-- More string functions as Flink 2.3 has them; positions and lengths count characters.
-- POSITION(a IN b) and LOCATE(a, b [, start]) are 1-based, 0 when absent; an empty needle is at 1,
-- a start below 1 searches from the beginning. INITCAP capitalises runs of ASCII letters and
-- digits, any other character (é, ', _, -) separates words and is left as it is. LPAD/RPAD cut
-- to the length or pad with repeats; a negative length or an empty padding gives NULL. REPEAT of
-- a count <= 0, LEFT/RIGHT of a length <= 0 give ''. REGEXP finds the regex anywhere; an empty
-- regex is FALSE. REGEXP_REPLACE takes the replacement literally ($1 is not a group). LTRIM and
-- RTRIM strip spaces only, or the given set of characters. ASCII is the first UTF-8 byte, signed,
-- 0 for ''. CHR(n) is the Latin-1 character n mod 256, '' for n < 0. OVERLAY replaces as many
-- characters as the replacement has (or FOR n) from a start in 1..length, else leaves the text.
-- TRANSLATE maps characters of `from` to those of `to` at the same place, dropping those past its end.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  id INT,
  s STRING,
  t STRING,
  n INT,
  k INT,
  c INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/strfn.csv',
  'format' = 'csv',
  'csv.null-literal' = '_'
);

SELECT id, s, t,
       POSITION(t IN s) AS pos,
       LOCATE(t, s) AS loc,
       LOCATE(t, s, k) AS loc_k,
       INITCAP(s) AS ic,
       LPAD(s, n, t) AS lp,
       RPAD(s, n, t) AS rp,
       LPAD(s, k, 'xy') AS lp2,
       REPEAT(s, k) AS rep,
       REVERSE(s) AS rev,
       REGEXP(s, 'l+') AS rx,
       REGEXP(s, t) AS rx_col,
       REGEXP(s, '^h') AS rx2,
       REGEXP_REPLACE(s, 'l+', 'L') AS rr,
       REGEXP_REPLACE(s, t, '#') AS rr_col,
       REGEXP_REPLACE(s, '(o)', '[$1]') AS rr_grp,
       LEFT(s, n) AS lf,
       RIGHT(s, n) AS rt,
       LTRIM(s) AS ltr,
       RTRIM(s) AS rtr,
       LTRIM(s, t) AS ltr2,
       RTRIM(s, t) AS rtr2,
       ASCII(s) AS asc,
       CHR(c) AS ch,
       CHAR_LENGTH(CHR(c)) AS chl,
       OVERLAY(s PLACING t FROM k) AS ov,
       OVERLAY(s PLACING t FROM k FOR n) AS ov2,
       TRANSLATE(s, t, 'XY') AS tr,
       TRANSLATE(s, 'lo', t) AS tr2
FROM t;
