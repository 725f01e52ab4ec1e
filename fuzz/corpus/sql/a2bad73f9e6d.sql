-- Spec §3 LISTAGG(x [, sep]): default separator ',', custom separators ('; ' and the empty stri_start;
values concatenated in arrival order, NULL values skipped (no empty slot), duplicates kept, and a
-- group with only NULLs gives NULL.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  s STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/listagg.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, LISTAGG(s) AS dflt, LISTAGG(s, '; ') AS semi, LISTAGG(s, '') AS glued, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
