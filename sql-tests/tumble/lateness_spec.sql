-- Spec §5 example with allowed lateness 0 (the default): 5 s TUMBLE, watermark ts - 2 s,
-- arrivals at 1 2 4 6 3 8 2 11 1 13 s. [0,5) fires when the row at 8 s lifts the watermark to 6 s;
-- the later rows at 2 s and 1 s are late (cleanup time 4.999 s <= watermark) and are not added.
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

SELECT k, window_start, window_end, COUNT(*), LISTAGG(CAST(v AS STRING), ' ')
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
