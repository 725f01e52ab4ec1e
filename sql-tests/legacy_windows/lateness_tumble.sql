-- Allowed lateness on a legacy TUMBLE, Flink's way: allow-lateness 6 s with late firing on and
-- delay 0 s (a legacy window refuses lateness without it). 5 s windows, watermark ts - 1 s.
--   a@6 lifts the watermark to 5 s: [0, 5) fires (a 1, b 2). a@3 and b@4 are late but inside the
--   lateness: -U/+U each; c@2 is the first row of c: +I.
--   a@12 lifts the watermark to 11 s: [5, 10) fires, [0, 5) is cleaned up (4.999 + 6 s); a@4 is
--   beyond the lateness: dropped. b@9 joins the fired [5, 10): +I for key b.
--   a@17 (watermark 16 s) fires [10, 15) and cleans [5, 10); b@8 and a@2 are dropped.
-- Outputs checked against Flink 2.3.
SET 'table.exec.emit.allow-lateness' = '6 s';
SET 'table.exec.emit.late-fire.enabled' = 'true';
SET 'table.exec.emit.late-fire.delay' = '0 s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/late.csv',
  'format' = 'csv'
);

SELECT k, TUMBLE_START(ts, INTERVAL '5' SECOND) AS wstart, TUMBLE_END(ts, INTERVAL '5' SECOND) AS wend,
       COUNT(*) AS n, SUM(v) AS total
FROM t
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), k;
