-- The late rule is the same for every frame (spec §4): a row is dropped only when its key already
-- emitted a rowtime at or after its own. Beyond Flink: Flink 2.3's UNBOUNDED OVER operators drop
-- every row behind the watermark instead, so Flink loses b@5 and b@8 here, which no row of b had
-- passed. The rows of late_drop.sql, watermark ts - 1 s: a@8 and a@10 are late (a emitted :10).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/late_drop.csv',
  'format' = 'csv'
);

SELECT k, ts, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_sum
FROM t;
