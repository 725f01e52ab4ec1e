-- Spec §2 alignment with a positive offset: 10 s TUMBLE offset 2 s gives windows [2+10n, 12+10n);
-- a row at 1.5 s falls in [-8 s, 2 s). Rows sit exactly on window starts and at end - 1 ms;
-- [2,12) fires exactly when the watermark reaches 11.999 s and a later row at 11.999 s is late.
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/offset.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
