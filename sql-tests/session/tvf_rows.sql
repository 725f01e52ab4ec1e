-- A SESSION TVF without aggregation returns each row when its session fires, with the session's
-- window columns, as Flink does. Same rows as bridge.sql (3 s gap, watermark ts - 5 s): a's
-- first session [1, 9) holds 1, 6, 4 (4 bridged [1, 4) and [6, 9)) and fires when 16.5 arrives;
-- a's [2, 13) holds 10, 8, 5, 2 (each joined the open session behind the watermark), b's [12, 15)
-- holds 12 and a's [16.5, 19.5) holds 16.5, all fired at the end of input. c's row at 1 s is late.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bridge.csv',
  'format' = 'csv'
);

SELECT k, v, window_start, window_end
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND));
