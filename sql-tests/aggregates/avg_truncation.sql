-- Spec §3: AVG(INT) and AVG(BIGINT) return the operand type, truncated toward zero (1.5 -> 1,
-- -1.5 -> -1, -3.5 -> -3, 0.5 -> 0, -1.5 -> -1). AVG(INT) sums in BIGINT so two INT maxima average to
-- INT max; AVG(BIGINT) sums in BIGINT and wraps like SUM (g6, g7).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  i INT,
  b BIGINT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/avg_truncation.csv',
  'format' = 'csv'
);

SELECT k, AVG(i) AS avg_i, AVG(b) AS avg_b
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
