-- A row late for a CUMULATE cycle's first windows but on time for its later ones counts only in
-- the later ones (spec §3), and LISTAGG lists it where Flink's running total puts it: after every
-- slice merged so far. 3 s cycles growing by 1 s, watermark = ts.
--   0 s and 1 s arrive; 2.5 s lifts the watermark past [0, 1) and [0, 2), which fire (1; 1 2).
--   0.5 s then arrives: late for [0, 1) and [0, 2), on time for [0, 3). It joins the running total
--   after 1 and 2, so [0, 3) lists 1 2 3 4 (not 1 3 2 4, its slice order); the summary reports it
--   as partially late. Flink prints the same.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/partly_late.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, LISTAGG(CAST(v AS STRING), ' '), COUNT(*), SUM(v)
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
