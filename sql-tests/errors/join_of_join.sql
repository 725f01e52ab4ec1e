-- A window join whose side is another window join's rows reads two tables through one side: not
-- supported yet, and said so (not as a union).
CREATE TABLE readings (ts TIMESTAMP(3), dev STRING, zone STRING, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../cascade/data/readings.csv', 'format' = 'csv');

CREATE VIEW pairs AS
SELECT L.window_start, L.window_end, L.zone, L.dev
FROM (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.zone = R.zone AND L.window_start = R.window_start AND L.window_end = R.window_end;

SELECT P.dev, T.v
FROM pairs P
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))) T
ON P.dev = T.dev AND P.window_start = T.window_start AND P.window_end = T.window_end;
