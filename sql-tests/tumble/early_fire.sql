-- Early firing (Beyond Flink on window TVFs: Flink rejects its early-fire keys there): with
-- 'tidemark.emit.early-fire' = '3 s', open windows emit their partial results at the first
-- watermark and whenever the watermark reaches a multiple of 3 s, as +I the first time and
-- -U/+U when the result changed; the on-time fire then emits only what changed since.
-- 10 s TUMBLE, watermark ts - 1 s:
--   a@1 -> watermark 0: tick, [0, 10) a (1, 1).
--   a@2, b@3, a@4 -> watermark 3: tick, a (3, 7), b (1, 3) new.
--   a@5, a@8 -> watermark 7: the tick at 6, a (5, 20); b unchanged, nothing.
--   b@9, a@12 -> watermark 11: the tick at 9 finds [0, 10) due and [10, 20) open: [10, 20) a
--   (1, 12) early; then [0, 10) fires on time: a unchanged, b (2, 12).
--   a@13 -> watermark 12: tick, [10, 20) a (2, 25). The end of input fires it unchanged.
SET 'tidemark.emit.early-fire' = '3 s';
SET 'tidemark.trace' = 'true';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/early_fire.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
