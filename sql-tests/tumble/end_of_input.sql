-- Spec §1: when the bounded source ends it emits the final watermark +inf and every pending window
-- fires, in window order (then keys in first-row order, §3). Only [0,5) fires before the end; [5,10),
-- [10,15) and [15,20) fire only because the input ends, although their rows arrived out of order.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '8' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/end_of_input.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, k, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING)) AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
