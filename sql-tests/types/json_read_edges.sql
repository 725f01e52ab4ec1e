-- How the json format reads the new types at their edges, as Flink's does (each field that does
-- not read is NULL here, with 'json.ignore-parse-errors'): a DATE is ISO_LOCAL_DATE, so only
-- yyyy-MM-dd of a day that exists; a TIME is HH:mm:ss with an optional fraction, and 24:00:00 is
-- midnight; a TINYINT or SMALLINT number with a fraction is not taken (an INT's would be cut);
-- FLOAT takes a number or Java's syntax in a string. Outputs checked against Flink 2.3.
CREATE TABLE t (id INT, dt DATE, tm TIME(3), ti TINYINT, f FLOAT, si SMALLINT)
WITH (
  'connector' = 'filesystem',
  'path' = 'data/read_edges.json',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);

SELECT * FROM t;
