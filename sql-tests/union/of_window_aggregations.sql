-- UNION ALL of two window aggregations over different tables (10-second TUMBLE windows,
-- watermark ts - 2 s): each input's aggregation fires when its own input's watermark passes a
-- window, and its rows go out before the union's watermark (the lower of the two) does, so a
-- window aggregation over the union finds none of them late.
--   clicks per user: [:00, :10) alice 2, bob 1; [:10, :20) alice 1, carol 1, bob 1;
--                    [:20, :30) alice 1, bob 1; [:40, :50) carol 1, alice 1.
--   orders per user: [:00, :10) alice 1, bob 1; [:10, :20) alice 1, carol 1;
--                    [:20, :30) alice 1, bob 2; [:30, :40) carol 1; [:40, :50) alice 1.
-- Rows of one window were compared with Flink 2.3's as a set.
CREATE TABLE clicks (
  ts TIMESTAMP(3),
  usr STRING,
  page STRING,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '../join/data/clicks.csv', 'format' = 'csv');

CREATE TABLE orders (
  ts TIMESTAMP(3),
  usr STRING,
  amount INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '../join/data/orders.csv', 'format' = 'csv');

CREATE VIEW events AS
SELECT window_start, window_end, usr, 'click' AS kind, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, usr
UNION ALL
SELECT window_start, window_end, usr, 'order' AS kind, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, usr;

-- The union's rows: each window's clicks and orders per user, window by window.
SELECT * FROM events;

-- Events per user and window over the union: [:00) alice 3, bob 2; [:10) alice 2, carol 2,
-- bob 1; [:20) alice 2, bob 3; [:30) carol 1; [:40) carol 1, alice 2.
SELECT window_start, window_end, usr, SUM(n) AS events, COUNT(*) AS kinds
FROM events
GROUP BY window_start, window_end, usr;
