-- DISTINCT and FILTER in CUMULATE windows: each step's window sees a value once however many of
-- its slices hold it (SUM(DISTINCT p) of the 10 s window of a is 5 + 12, though 5 is in the first
-- slice twice and 12 in both). LISTAGG(DISTINCT s) keeps first-seen order across slices.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT window_start, window_end, k, SUM(DISTINCT p), LISTAGG(DISTINCT s), COUNT(*) FILTER (WHERE p > 4)
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
