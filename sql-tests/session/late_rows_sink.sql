-- A session aggregation routes its late rows too, per source table
-- ('table.exec.late-records.sink.<source>'), here with only the metadata it wants: the sink
-- declares the source columns and late_reason. Data as in lateness_merge.sql without lateness:
-- a@1.5, a@6, a@4, a@17, a@8, a@12, a@14, a@0 and b@5 arrive behind the watermark; a@17 joins
-- the open [20, 23) and is kept, the rest would join or make sessions already cleaned up.
SET 'table.exec.late-records.sink.t' = 'late_t';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_merge.csv',
  'format' = 'csv'
);

CREATE TABLE late_t (k STRING, ts TIMESTAMP(3), v INT, late_reason STRING)
WITH ('connector' = 'print');

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
