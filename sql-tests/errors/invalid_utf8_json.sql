-- Bytes that are not UTF-8 in a JSON line: with ignore-parse-errors the
-- row is skipped and counted; without, the query stops with the file and
-- line.
CREATE TABLE lenient (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/invalid_utf8.json', 'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);
CREATE TABLE strict (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/invalid_utf8.json', 'format' = 'json'
);
SELECT * FROM lenient;
SELECT * FROM strict;
