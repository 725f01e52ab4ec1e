-- A window aggregation over rows that already carry their window, grouped by their window_start
-- and window_end without a second TVF (Flink's windows attached to their input): each window of
-- the rows below is a window of its own, which fires when the watermark passes its window_end.
-- 10-second windows of device readings, watermark ts - 1 s; d3's reading at :29 arrives after
-- :31 and is late for [:20, :30) (dropped and counted by the first aggregation).
--   per device:  [:00, :10) d1 10 (2 rows), d2 7, d3 10 (2), d4 2; [:10, :20) d1 3, d2 5,
--                d3 8, d4 4; [:20, :30) d1 2; [:30, :40) d2 10, d4 6.
-- Rows of one firing were compared with Flink 2.3's as a set.
CREATE TABLE readings (
  ts TIMESTAMP(3),
  dev STRING,
  zone STRING,
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.csv', 'format' = 'csv');

CREATE VIEW per_device AS
SELECT window_start, window_end, dev, zone, SUM(v) AS total, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, dev, zone;

-- Devices and totals per window: [:00) 4, 29, 10; [:10) 4, 20, 8; [:20) 1, 2, 2; [:30) 2, 16, 10.
SELECT window_start, window_end, COUNT(*) AS devices, SUM(total) AS total,
       MAX(total) AS top
FROM per_device
GROUP BY window_start, window_end;

-- Per zone, with a filter on the first aggregation's rows (devices with one reading only):
-- [:00) north d2 7, south d4 2; [:10) north 3 + 5 = 8, south 8 + 4 = 12; [:20) north 2;
-- [:30) north 10, south 6.
SELECT zone, window_start, window_end, SUM(total) AS total, COUNT(*) AS devices
FROM per_device
WHERE n = 1
GROUP BY window_start, window_end, zone;

-- Over a HOP aggregation (5-second slide): each of its windows is a window here. The late
-- reading at :29 still counts in [:25, :35), which had not fired: d1, d2, d3 there, top 10. window_time, kept by the first
-- aggregation, is each window's last instant here too.
SELECT window_start, window_end, window_time, COUNT(*) AS devices, MAX(total) AS top
FROM (
  SELECT window_start, window_end, window_time, dev, SUM(v) AS total
  FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, window_time, dev
)
GROUP BY window_start, window_end, window_time;

-- Over a CUMULATE aggregation (5-second steps of 10-second cycles): [:00, :05) d1 d2 d3 12,
-- [:00, :10) all four 29; [:10, :15) d1 d2 8, [:10, :20) 20; [:20, :25) and [:20, :30) d1 2
-- (:29 late for both); [:30, :35) and [:30, :40) d2 d4 16.
SELECT window_start, window_end, COUNT(*) AS devices, SUM(total) AS total
FROM (
  SELECT window_start, window_end, dev, SUM(v) AS total
  FROM TABLE(CUMULATE(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, dev
)
GROUP BY window_start, window_end;

-- Over a window Top-N: the two largest readings of each window, summed.
-- [:00) 9 + 7 = 16; [:10) 8 + 5 = 13; [:20) 2; [:30) 10 + 6 = 16.
SELECT window_start, window_end, SUM(v) AS top2, COUNT(*) AS n
FROM (
  SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
    FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  ) WHERE rn <= 2
)
GROUP BY window_start, window_end;

-- Over a window join: pairs of readings of one zone per window (a reading with itself
-- included), counted per zone; the late reading at :29 is dropped on both sides.
-- [:00) north 3 x 3 = 9, south 3 x 3 = 9; [:10) north 2 x 2 = 4, south 4; [:20) north 1;
-- [:30) north 1, south 1.
SELECT zone, window_start, window_end, COUNT(*) AS pairs
FROM (
  SELECT L.zone, L.window_start, L.window_end
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
  JOIN (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
  ON L.zone = R.zone AND L.window_start = R.window_start AND L.window_end = R.window_end
)
GROUP BY window_start, window_end, zone;

-- The trace of the same: the second aggregation names each window by the instant it ends, and
-- fires it on the watermark advance that fired it below (its rows came first).
SET 'tidemark.trace' = 'true';

SELECT window_start, window_end, COUNT(*) AS devices
FROM per_device
GROUP BY window_start, window_end;

RESET 'tidemark.trace';

-- The plan: the second aggregation windows by the TUMBLE windows its rows carry.
EXPLAIN
SELECT window_start, window_end, COUNT(*) AS devices, SUM(total) AS total
FROM per_device
GROUP BY window_start, window_end;
