-- A table's computed columns are not written (as in Flink, an INSERT INTO gives the physical
-- and persisted metadata columns only): the print table below takes k, window_start and top,
-- and never shows twice. The rows are the first run of insert/print_sink.sql: windows of 5 s
-- over data/updates.csv, four late rows dropped. Giving twice as well is an error whose hint
-- names the columns the table takes.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/updates.csv',
  'format' = 'csv'
);

CREATE TABLE tops (k STRING, window_start TIMESTAMP(3), top BIGINT, twice AS top * 2)
WITH ('connector' = 'print', 'print-identifier' = 'tops');

INSERT INTO tops
SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;

INSERT INTO tops
SELECT k, window_start, MAX(v), MAX(v) * 2
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
