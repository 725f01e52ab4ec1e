-- Late rows are never lost silently (spec §6): the spec §5 example with lateness 0 routes its two
-- late rows (2 s at watermark 6 s, 1 s at watermark 9 s) into a sink table, with the source
-- table's columns and the metadata columns it declares. The print sink shows them where they
-- happen, after [0, 5) fired; 'tidemark.display.late-records' also shows them inline as LATE[...].
SET 'table.exec.late-records.sink' = 'late_t';
SET 'tidemark.display.late-records' = 'true';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_spec.csv',
  'format' = 'csv'
);

CREATE TABLE late_t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  late_reason STRING,
  watermark TIMESTAMP(3),
  operator STRING
) WITH (
  'connector' = 'print',
  'print-identifier' = 'late'
);

SELECT k, window_start, window_end, COUNT(*), LISTAGG(CAST(v AS STRING), ' ')
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
