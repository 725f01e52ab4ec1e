-- A window join over a window aggregation that emits updates (allowed lateness re-fires its
-- windows) is refused: a join cannot take back a row it has joined. Flink refuses update streams
-- there too.
SET 'table.exec.emit.allow-lateness' = '1 min';

CREATE TABLE clicks (ts TIMESTAMP(3), usr STRING, page STRING, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../join/data/clicks.csv', 'format' = 'csv');
CREATE TABLE orders (ts TIMESTAMP(3), usr STRING, amount INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../join/data/orders.csv', 'format' = 'csv');

SELECT C.usr, C.clicks, O.amount
FROM (
  SELECT window_start, window_end, usr, COUNT(*) AS clicks
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, usr
) C
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))) O
ON C.usr = O.usr AND C.window_start = O.window_start AND C.window_end = O.window_end;
