-- A query reading several tables names one late-records sink per source
-- ('table.exec.late-records.sink.<source>'); a late row keeps its own table's columns. The same
-- streams as lagging_source.sql: west's b@3 is late, and goes to west's sink. EXPLAIN shows the
-- union's watermark as the minimum of its inputs'.
SET 'table.exec.late-records.sink.west' = 'late_west';
SET 'table.exec.late-records.sink.east' = 'late_east';

CREATE TABLE east (
  region STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/east.csv', 'format' = 'csv');

CREATE TABLE west (
  region STRING,
  ts TIMESTAMP(3),
  price BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/west.csv', 'format' = 'csv');

CREATE TABLE late_east (region STRING, ts TIMESTAMP(3), price INT, operator STRING)
WITH ('connector' = 'print', 'print-identifier' = 'late east');

CREATE TABLE late_west (region STRING, ts TIMESTAMP(3), price BIGINT, `watermark` TIMESTAMP(3))
WITH ('connector' = 'print', 'print-identifier' = 'late west');

CREATE VIEW sales AS
SELECT region, ts, price FROM east
UNION ALL
SELECT region, ts, price FROM west;

EXPLAIN
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
