-- UNION ALL of two rowtime tables (spec §1): rows are interleaved row by row, from the input whose
-- watermark is lowest (ties: the input declared first), and the union's watermark is the minimum
-- of the inputs'. Watermark ts - 1 s on both.
--   east a@1 (tie at -inf, east first), west b@2, east a@3, west b@4, east a@8, then west while it
--   is lower: b@5, b@6, b@11 (west's watermark 10 s > east's 7 s), east a@12 (east 11 s), and
--   west's b@3, which meets the union watermark min(11, 10) = 10 s: late for [0, 5), which fired
--   before a@12 when the union watermark reached 7 s.
--   [0, 5) holds a@1 b@2 a@3 b@4; [5, 10) b@5 b@6 a@8; [10, 15) b@11 a@12.
-- price is INT on one side and BIGINT on the other: the union's column is BIGINT, as in Flink.
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

CREATE VIEW sales AS
SELECT region, ts, price FROM east
UNION ALL
SELECT region, ts, price FROM west;

SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS total,
       LISTAGG(region || CAST(price AS STRING), ' ') AS arrivals
FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
