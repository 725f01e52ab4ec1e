-- How the csv format reads the new types at their edges, as Flink's does (each field that does
-- not read is NULL here, with 'csv.ignore-parse-errors'): a DATE is Java's Date.valueOf, so a
-- month and day of one digit are taken and 2024-02-30 rolls over to 2024-03-01, but spaces or a
-- time after the day are not; a TIME is ISO_LOCAL_TIME, so 12:34 and 12:34:56. are taken but
-- 1:02:03 and 24:00:00 are not; TINYINT and SMALLINT are trimmed and must fit; FLOAT takes
-- Java's syntax (1.5f, .5, NaN; 1e39 is Infinity). Outputs checked against Flink 2.3.
CREATE TABLE t (id INT, dt DATE, tm TIME(3), ti TINYINT, f FLOAT, si SMALLINT)
WITH (
  'connector' = 'filesystem',
  'path' = 'data/read_edges.csv',
  'format' = 'csv',
  'csv.ignore-parse-errors' = 'true'
);

SELECT * FROM t;
