-- The trace (SET 'tidemark.trace' = 'true') on the spec §5 example with 3 s lateness: one line
-- per fire, re-fire, late row and cleanup, with the window, its rows and the watermark, among
-- the changelog in the order they happen.
--   [0, 5) fires at watermark 6 s (4 rows); the 2 s row re-fires it for key k (5 rows); the
--   11 s row lifts the watermark to 9 s, past [0, 5)'s cleanup at 7.999 s; the 1 s row is then
--   late for [0, 5). At the end of input [5, 10) and [10, 15) fire and are cleaned up.
SET 'table.exec.emit.allow-lateness' = '3 s';
SET 'tidemark.trace' = 'true';

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
