-- A window aggregation over a subquery of a window TVF: filters and projections of the TVF's rows
-- that do not read its window columns are moved under the TVF, so the aggregation keeps its state
-- per slice as it does over the TVF itself; a filter on a window column aggregates the TVF's
-- rows per the window each carries. Same readings as windows_of_windows.sql: 10-second windows,
-- watermark ts - 1 s, the reading at :29 late for [:20, :30). Rows of one firing were compared
-- with Flink 2.3's as a set.
CREATE TABLE readings (
  ts TIMESTAMP(3),
  dev STRING,
  zone STRING,
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.csv', 'format' = 'csv');

-- Readings above 2, per zone: [:00) north 4 + 7 + 6 = 17, south 9; [:10) north 3 + 5 = 8,
-- south 8 + 4 = 12; [:30) north 10, south 6 ([:20)'s only reading, 2, is filtered out).
SELECT window_start, window_end, zone, SUM(v) AS total
FROM (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 2)
GROUP BY window_start, window_end, zone;

-- A projection that computes and renames, and drops the rowtime, under a HOP; a view between.
-- North readings: :01 d1 4, :02 d2 7, :05 d1 6, :12 d1 3, :11 d2 5, :23 d1 2, :31 d2 10.
-- [-:05, :05) d1 d2 110; [:00, :10) d1 d2 170; [:05, :15) d1 d2 140; [:10, :20) d1 d2 80;
-- [:15, :25) and [:20, :30) d1 20; [:25, :35) and [:30, :40) d2 100.
CREATE VIEW north_hops AS
SELECT dev AS device, v * 10 AS v10, window_start, window_end
FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE zone = 'north';

SELECT window_start, window_end, COUNT(DISTINCT device) AS devices, SUM(v10) AS total
FROM north_hops
GROUP BY window_start, window_end;

-- A filter on window_start: the rows are aggregated per the window they carry. [:00) is left
-- out; [:10) has 4 readings, top 8; [:20)'s late reading is dropped by the aggregation, leaving
-- :23 (2); [:30) has :31 and :34, top 10.
SELECT window_start, window_end, COUNT(*) AS n, MAX(v) AS top
FROM (
  SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  WHERE window_start >= TIMESTAMP '2024-01-01 00:00:10'
)
GROUP BY window_start, window_end;

-- A SESSION TVF partitioned by zone under a filter. As with a WHERE in the TVF's own SELECT, and
-- as Flink plans it, the filter is applied before the rows are put into sessions (the SESSION
-- TVF's rows without aggregation are filtered after: see session/tvf_rows.sql). Readings above
-- 3, sessions of a 3-second gap (touching ones merge):
--   north :01 (4), :02 (7), :05 (6) -> [:01, :08); :11 (5) -> [:11, :14); :31 (10) -> [:31, :34);
--   south :08 (9) -> [:08, :11); :15 (8) -> [:15, :18); :19 (4) -> [:19, :22);
--   :34 (6) -> [:34, :37).
SELECT zone, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM (
  SELECT * FROM TABLE(SESSION(TABLE readings PARTITION BY zone, DESCRIPTOR(ts), INTERVAL '3' SECOND))
  WHERE v > 3
)
GROUP BY window_start, window_end, zone;

-- A WHERE beside the TVF that reads window_start filters the TVF's rows with their windows,
-- which are then aggregated per the window each carries (readings above 1 in windows from :20):
-- [:20, :30) north 1 (:23); [:25, :35) north 1 (:31), south 1 (:34); [:30, :40) the same two.
SELECT window_start, window_end, zone, COUNT(*) AS n
FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE window_start >= TIMESTAMP '2024-01-01 00:00:20' AND v > 1
GROUP BY window_start, window_end, zone;
