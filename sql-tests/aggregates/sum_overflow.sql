-- Spec §3 numbers: SUM(INT) is INT and SUM(BIGINT) is BIGINT, and overflow wraps (two's complement) as
-- in Flink instead of failing; an intermediate overflow that comes back into range gives the exact sum.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  i INT,
  b BIGINT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/sum_overflow.csv',
  'format' = 'csv'
);

SELECT k, SUM(i) AS sum_i, SUM(b) AS sum_b, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
