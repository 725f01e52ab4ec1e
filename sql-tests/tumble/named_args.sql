-- Spec §2 named arguments: TUMBLE(DATA =>, TIMECOL =>, SIZE =>, `OFFSET` =>) behaves as the positional
-- form; 5 s windows offset 1 s. With a strictly ascending watermark (WATERMARK FOR ts AS ts) a row at
-- window_end - 1 ms fires its own window at once, and a row at 05.999 after the watermark reached 06 is late.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/named_args.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total
FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '5' SECOND, `OFFSET` => INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;
