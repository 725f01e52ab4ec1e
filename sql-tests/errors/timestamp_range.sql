-- TIMESTAMP(3) values run from 0000-01-01 to 9999-12-31, as in Flink: a
-- year outside them does not parse. With ignore-parse-errors the field is
-- set to NULL and counted (Flink's rule for a field that does not parse);
-- without, the first stops the query with the file, line and field under
-- a caret.
CREATE TABLE lenient (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/timestamp_range.csv', 'format' = 'csv',
  'csv.header' = 'true', 'csv.ignore-parse-errors' = 'true'
);
CREATE TABLE strict (ts TIMESTAMP(3), name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'data/timestamp_range.csv', 'format' = 'csv',
  'csv.header' = 'true'
);
SELECT * FROM lenient;
SELECT * FROM strict;
