-- Window joins whose inputs are window aggregations or a window Top-N over 10-second TUMBLE
-- windows, joined per window on the user.
--   clicks per window: [:00, :10) alice 2, bob 1; [:10, :20) alice 1, carol 1, bob 1;
--                      [:20, :30) alice 1, bob 1; none in [:30, :40); [:40, :50) carol 1, alice 1.
--   orders per window: [:00, :10) alice 10, bob 5; [:10, :20) alice 7, carol 3;
--                      [:20, :30) alice 4, bob 6 and 1; [:30, :40) carol 2; [:40, :50) alice 9.
-- An aggregated side emits a window's rows when the watermark of its own input passes the window,
-- before the join's watermark (the lower of the two inputs') does, so no partner is lost when
-- the other side runs ahead. Rows of one window come out in the join's order; Flink's order
-- within a window follows its hash state, so they were compared as a set per window against
-- Flink 2.3.
CREATE TABLE clicks (
  ts TIMESTAMP(3),
  usr STRING,
  page STRING,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');

CREATE TABLE orders (
  ts TIMESTAMP(3),
  usr STRING,
  amount INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');

CREATE VIEW click_counts AS
SELECT window_start, window_end, usr, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, usr;

-- Two aggregations: every user with both clicks and orders in a window.
-- [:00) alice 2 10, bob 1 5; [:10) alice 1 7, carol 1 3; [:20) alice 1 4, bob 1 7; [:40) alice 1 9.
SELECT C.usr, C.window_start, C.window_end, C.clicks, O.total
FROM click_counts C
JOIN (
  SELECT window_start, window_end, usr, SUM(amount) AS total
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, usr
) O
ON C.usr = O.usr AND C.window_start = O.window_start AND C.window_end = O.window_end;

-- An aggregation beside a TVF's rows: each order with its user's clicks in the window; carol's
-- order at :35 has no clicks and is padded.
SELECT O.ts, O.usr, O.amount, C.clicks, O.window_end
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))) O
LEFT JOIN click_counts C
ON O.usr = C.usr AND O.window_start = C.window_start AND O.window_end = C.window_end;

-- A window Top-N (each window's largest order) beside an aggregation:
-- [:00) alice 10 / 2; [:10) alice 7 / 1; [:20) bob 6 / 1; [:30) carol 2 / NULL; [:40) alice 9 / 1.
SELECT T.window_start, T.usr, T.amount, C.clicks
FROM (
  SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
    FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  ) WHERE rn = 1
) T
LEFT JOIN click_counts C
ON T.usr = C.usr AND T.window_start = C.window_start AND T.window_end = C.window_end;

-- Users who clicked in a window but ordered nothing in it (an anti join of an aggregation):
-- [:10) bob; [:40) carol.
SELECT C.usr, C.window_start, C.clicks
FROM click_counts C
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))) O
  WHERE C.usr = O.usr AND C.window_start = O.window_start AND C.window_end = O.window_end);
