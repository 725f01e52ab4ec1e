-- Spec §2: window_time = window_end - 1 ms. A row at window_start belongs to that window, a row at
-- window_end - 1 ms too, a row at window_end to the next one (windows are [start, end)). A row at
-- 09.999 arriving when the watermark is exactly 09.999 is late (§3: cleanup time <= watermark).
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/window_time.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, window_time, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, window_time;
