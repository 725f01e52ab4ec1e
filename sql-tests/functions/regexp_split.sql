-- REGEXP_EXTRACT(s, regex [, group]) gives the group of the first match (group 0, the whole match,
-- when none is given, as in Flink), NULL when nothing matches, when the group does not exist or
-- did not take part in the match. SPLIT_INDEX(s, sep, i) gives the i-th (0-based) piece, keeping
-- empty pieces; NULL for a negative or too large index and for empty text.
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
       REGEXP_EXTRACT(s, '[a-z]+') AS word,
       REGEXP_EXTRACT(s, '([a-z])(l+)', 2) AS group2,
       REGEXP_EXTRACT(s, '(x)?([a-z]+)', 1) AS unused_group,
       REGEXP_EXTRACT(s, '[0-9]+') AS no_match,
       REGEXP_EXTRACT(s, '(l)', 2) AS no_such_group,
       REGEXP_EXTRACT(s, CONCAT('[', c, '].')) AS col_regex,
       SPLIT_INDEX(s, ',', 0) AS first,
       SPLIT_INDEX(s, ',', 2) AS empty_piece,
       SPLIT_INDEX(s, ',', 3) AS last,
       SPLIT_INDEX(s, ',', 9) AS past_end,
       SPLIT_INDEX(s, ',', -1) AS negative,
       SPLIT_INDEX(s, c, 1) AS col_sep,
       SPLIT_INDEX('', ',', 0) AS empty_text
FROM t;
