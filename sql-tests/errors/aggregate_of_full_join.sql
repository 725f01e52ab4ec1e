-- The rows of a FULL window join carry no window of their own (either side's window columns may
-- be NULL), so grouping them by window_start, window_end is an aggregation without a window; the
-- hint names the joins whose rows can be aggregated so.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/right.csv', 'format' = 'csv');

SELECT window_start, window_end, COUNT(*) AS n
FROM (
  SELECT COALESCE(L.window_start, R.window_start) AS window_start,
         COALESCE(L.window_end, R.window_end) AS window_end
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
  FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end
)
GROUP BY window_start, window_end;
