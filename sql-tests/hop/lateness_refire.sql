-- Allowed lateness on HOP (Beyond Flink): a late row re-fires every fired window it falls in that
-- is not cleaned up yet, newest window first (as Flink's legacy late firing does), and only for
-- its own key. 6 s windows sliding
-- every 2 s, watermark ts - 1 s, lateness 5 s (cleanup at window_end - 1 ms + 5 s).
--   a@1, b@1, a@3: the watermark reaches 2 s; [-4, 2) fires (a: 1; b: 1000) before a@5.
--   a@5: watermark 4 s; [-2, 4) fires (a: 1 3; b: 1000) before a@10, which lifts it to 9 s.
--   a@4 arrives at watermark 9 s: first [0, 6) fires (a: 1 3 5; b: 1000) and [2, 8) (a: 3 5);
--   [-4, 2) is cleaned up at 6.999 s. a@4 is in [0, 6) and [2, 8), both fired and not cleaned
--   up, so each re-fires for key a (-U old, +U new), [2, 8) first; [4, 10) has not fired and
--   takes it normally.
--   a@12: watermark 11 s. Before a@0.5, [4, 10) fires (a: 5 4) and [0, 6) is cleaned up
--   (10.999 s); a@0.5's windows [-4, 2), [-2, 4), [0, 6) are all cleaned up: late, dropped.
--   a@2.5 at watermark 11 s: [-2, 4) and [0, 6) are cleaned up, [2, 8) is not (12.999 s): the
--   row is partially late and re-fires [2, 8) alone.
--   End of input: [6, 12), [8, 14), [10, 16), [12, 18) for a.
-- LISTAGG lists a HOP window's slices newest first (Flink's merge order), arrival order within
-- a slice: the re-fired [2, 8) is "5 4 3", then "5 4 3 200".
SET 'table.exec.emit.allow-lateness' = '5 s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_refire.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, k;
