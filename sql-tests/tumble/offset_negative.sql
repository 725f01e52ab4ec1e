-- Spec §2 alignment with a negative offset: 10 s TUMBLE offset -3 s gives windows [7+10n, 17+10n);
-- the row at 0 s falls in [-3 s, 7 s). Rows on window starts and at end - 1 ms; a row at 6 s arriving
-- once the watermark is 6.999 s is late.
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/offset_negative.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '-3' SECOND))
GROUP BY window_start, window_end;
