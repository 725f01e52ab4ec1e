-- Epoch microseconds read as milliseconds are out of range for a timestamp, so the computed
-- rowtime is NULL and the job stops (as Flink's does); the error says why that may be.
CREATE TABLE t (
  k STRING,
  epoch BIGINT,
  v INT,
  ts AS TO_TIMESTAMP_LTZ(epoch, 3),
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/epoch_micros.csv',
  'format' = 'csv'
);

SELECT k, epoch, v FROM t;
