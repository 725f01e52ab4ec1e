-- Allowed lateness on TUMBLE and HOP window TVFs becomes Flink's legacy group
-- windows: the window's columns keep their names, the late-fire options are
-- added once, a reserved column name is quoted, a name written in another
-- case than declared is written as declared, and a MILLISECOND interval is
-- written in seconds.
SET 'table.exec.emit.allow-lateness' = '2 s';

CREATE TABLE bids (
  bidder STRING,
  dateTime TIMESTAMP(3),
  `value` INT,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '500' MILLISECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT Bidder, window_start, window_end, COUNT(*) AS bids, SUM(value) AS total
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, bidder
HAVING SUM(value) > 1;

SELECT w.window_end - INTERVAL '1' SECOND AS last_second, w.window_time, MAX(w.value) AS top
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(dateTime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) AS w
GROUP BY w.window_start, w.window_end;
