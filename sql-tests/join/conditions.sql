-- Window joins whose ON says more than equal columns: the rest of the condition is a predicate a
-- pair of rows with equal keys must also meet, and an outer, semi or anti join counts a row as
-- matched only through a pair that meets it (Flink's remaining join condition). Flink's
-- documentation tables, 5-minute TUMBLE windows, watermark row_time - 5 min:
--   [12:00, 12:05): left L1 (1), L3 (3); right R2 (2), R3 (3).
--   [12:05, 12:10): left L2 (2); right R4 (4).
-- Rows of one window were compared with Flink 2.3's as a set.
CREATE TABLE LeftTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '5' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'data/left.csv', 'format' = 'csv');

CREATE TABLE RightTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '5' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'data/right.csv', 'format' = 'csv');

-- No equal keys, only L.num < R.num: L1 with R2 and R3 (L3 has none); L2 with R4.
SELECT L.id, R.id, L.window_start
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.num < R.num;

-- LEFT: as above, and L3 padded.
SELECT L.id, R.id, L.window_start
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.num < R.num;

-- Equal num, and the left row must come after the right one: L3 (12:03) and R3 (12:04) have equal
-- keys but fail it, so the FULL join pads every row: L1, L3, R2, R3; then L2, R4.
SELECT L.id, R.id, COALESCE(L.window_start, R.window_start) AS window_start
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end
AND L.row_time > R.row_time;

-- RIGHT, with a condition on one side only (R.id <> 'R2') beside equal keys: R3 with L3; R2 and
-- R4 padded.
SELECT L.id, R.id, R.window_start
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
RIGHT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end
AND R.id <> 'R2';

-- EXISTS with L.num < R.num: L1, L2.
SELECT L.id, L.num
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
WHERE EXISTS (
  SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND L.num < R.num);

-- NOT EXISTS with the same: L3.
SELECT L.id, L.num
FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND L.num < R.num);
