-- Bytes that are not UTF-8 in a CSV line: the line cannot be read as text,
-- so with ignore-parse-errors the whole row is skipped and counted;
-- without, the query stops with the file, line and field under a caret
-- (the bad bytes shown as U+FFFD).
CREATE TABLE lenient (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/invalid_utf8.csv', 'format' = 'csv',
  'csv.header' = 'true', 'csv.ignore-parse-errors' = 'true'
);
CREATE TABLE strict (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/invalid_utf8.csv', 'format' = 'csv',
  'csv.header' = 'true'
);
SELECT * FROM lenient;
SELECT * FROM strict;
