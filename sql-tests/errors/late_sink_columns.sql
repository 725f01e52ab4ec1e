-- A late-records sink must declare the source table's columns (in order, same types) before any
-- metadata columns; otherwise the query is rejected before it runs.
SET 'table.exec.late-records.sink' = 'late_t';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '../tumble/data/lateness_spec.csv',
  'format' = 'csv'
);

CREATE TABLE late_t (k STRING, ts TIMESTAMP(3), late_reason STRING)
WITH ('connector' = 'blackhole');

SELECT k, window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
