-- A folder read as a table (spec §8): every file in it is one split, in name order; '_SUCCESS' and
-- '.host-c.csv.inprogress' are skipped (names starting with '_' or '.'). Each split has its own
-- watermark (ts - 2 s over its own rows: Beyond Flink, whose filesystem source keeps one for all
-- files), the table's is the lowest of them, and rows are taken from the split whose watermark is
-- lowest (ties: the split listed first). The rows, with each split's watermark before them:
--   host-a: a1 00:01 (-inf), a2 00:04 (-1 s), a3 00:12 (2 s), a4 00:25 (10 s); after them 23 s
--   host-b: b1 00:02 (-inf), b2 00:09 (0 s),  b3 00:11 (7 s), b4 00:21 (9 s);  after them 19 s
-- so they come a1 b1 a2 b2 a3 b3 b4 a4, and the table's watermark is min(a, b): [0 s, 10 s)
-- fires once b4 lifts host-b past 10 s, at min(10, 19) = 10 s; host-b then ends and no longer
-- holds the watermark: a4 lifts it to 23 s, firing [10 s, 20 s); the end of input fires
-- [20 s, 30 s). No row is late. Read one file after the other instead, host-a would have pushed
-- the watermark to 23 s before host-b's first row, and b1, b2 and b3 would have been dropped as
-- late.
SET 'tidemark.trace' = 'true';

CREATE TABLE logs (
  ts TIMESTAMP(3),
  host STRING,
  n INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/hosts/', 'format' = 'csv');

SELECT window_start, COUNT(*) AS rows_in, LISTAGG(host || CAST(n AS STRING), ' ') AS arrivals
FROM TABLE(TUMBLE(TABLE logs, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;

-- A glob names the same files.
CREATE TABLE logs_glob (
  ts TIMESTAMP(3),
  host STRING,
  n INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/hosts/host-*.csv', 'format' = 'csv');

SELECT window_start, COUNT(*) AS rows_in
FROM TABLE(TUMBLE(TABLE logs_glob, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
