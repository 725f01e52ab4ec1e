-- Spec §1 (Beyond Flink) and §2: pre-1970 rows are aligned with the negative-safe formula and the
-- watermark starts at -inf, so windows before the epoch fire and drop late rows like any others.
-- [-10 s, -5 s) fires when the watermark reaches -3.5 s, so the row at 23:59:54 after it is late.
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/negative_timestamps.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
