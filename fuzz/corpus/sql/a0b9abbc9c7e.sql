-- A row is dropped when its key already emitted a rowtime at or after its own, while another key
-- accepts the same timestamp (spec §4). Watermark ts - 1 s.
--   a@10, b@5; a@20 lifts the watermark to :19: b@5 and a@10 go out.
--   a@8: a emitted :10, so a@8 is late: dropped, counted, in the trace.
--   b@8: b emitted only :5, so b@8 is kept although the watermark is :19; out at the next advance.
--   a@10: a emitted :10 already (not after it): late.
--   a@30 lifts the watermark to :29: b@8 and a@20 go out; the end lets out a@30.
-- Same rows as Flink 2.3 (whose bounded ROWS operator has this rule).
SET 'tidemark.trace' = 'true';
SET 'tidemark.display.late-records' = 'true';

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

SELECT k, ts, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS running_sum
FROM t;
