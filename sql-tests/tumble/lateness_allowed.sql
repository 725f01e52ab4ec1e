-- Spec §5 example with allowed lateness 3 s (Beyond Flink: applied to window TVFs). [0,5) fires with
-- count 4 at watermark 6 s; the row at 2 s arrives before cleanup (4.999 + 3 s) and updates it to 5
-- (-U/+U); the row at 1 s arrives at watermark 9 s, after cleanup, and is late.
SET 'table.exec.emit.allow-lateness' = '3 s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_allowed.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*), LISTAGG(CAST(v AS STRING), ' ')
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
