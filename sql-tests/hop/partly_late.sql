-- A row late for its earliest HOP windows but on time for later ones counts only in the later
-- ones (spec §3). 6 s windows sliding every 2 s, watermark ts - 1 s, one key.
--   1 s, 2 s, 3 s arrive in order; the watermark (2 s) then reaches [-4, 2)'s end - 1, so it
--   fires with 1 before the 8 s row. The 8 s row lifts the watermark to 7 s, so before the next
--   row [-2, 4) and [0, 6) fire with 1, 2, 3.
--   The row at 4.5 s is in [0, 6) (fired), [2, 8) and [4, 10): it counts only in the last two,
--   and the summary reports it as partially late.
--   The row at 0.5 s is in [-4, 2), [-2, 4) and [0, 6), all fired: it is late and dropped.
--   The end of input fires [2, 8) (2, 3, 4.5), [4, 10) (4.5, 8), [6, 12) and [8, 14) (8).
-- LISTAGG lists a HOP window's slices newest first, as Flink merges them: [0, 6) is "2 3 1".
CREATE TABLE t (
  ts TIMESTAMP(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/partly_late.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, COUNT(*) AS n, LISTAGG(v, ' ') AS vs
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end;
