-- Allowed lateness on CUMULATE (Beyond Flink): windows [0, 2), [0, 4), [0, 6) of one cycle fire
-- at 1.999, 3.999, 5.999 s and are cleaned up 3 s later (4.999, 6.999, 8.999 s). Watermark
-- ts - 1 s.
--   a@1, a@3; a@5 arrives at watermark 2 s: [0, 2) fires with "1" first. a@6.5 arrives at 4 s:
--   [0, 4) fires with "1 3" first.
--   a@1.5 arrives at 5.5 s: [0, 2) is cleaned up (partially late), [0, 4) has fired and is not
--   cleaned up, so it re-fires: -U "1 3", +U "1 15 3"; [0, 6) has not fired and takes it.
--   a@8 arrives at 5.5 s and lifts the watermark to 7 s: before a@0.5, [0, 6) fires with
--   "1 15 3 5" and [0, 4) is cleaned up.
--   a@0.5 at 7 s: only [0, 6) is still there; it re-fires with the row added after every slice
--   of the windows already cleaned up ([0, 2) and [2, 4)), as Flink adds a partially late row
--   to a cycle's running total: "1 15 3 50 5".
--   End of input: [6, 8) "65", [6, 10) and [6, 12) "65 80".
SET 'table.exec.emit.allow-lateness' = '3 s';

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

SELECT k, window_start, window_end, COUNT(*) AS n, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, k;
