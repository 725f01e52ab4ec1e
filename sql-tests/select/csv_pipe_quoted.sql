-- CSV reading with 'csv.field-delimiter' = '|': a quoted field may contain the delimiter, a doubled
-- quote inside quotes is one quote, commas are ordinary characters, spaces are kept, and an empty field
-- is the empty string when no csv.null-literal is set.
CREATE TABLE t (
  id INT,
  s STRING,
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/csv_pipe_quoted.csv',
  'format' = 'csv',
  'csv.field-delimiter' = '|'
);

SELECT id, '<' || s || '>' AS s, n
FROM t;
