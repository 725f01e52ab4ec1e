-- Allowed lateness on a legacy HOP (10 s windows every 5 s), late firing on, delay 0 s,
-- lateness 6 s, watermark ts - 1 s: a late row updates every fired window it is in that is not
-- cleaned up yet, and is dropped from those that are (a@4 at watermark 11 s updates only
-- [0, 10); b@8 at watermark 16 s only [5, 15)); a@2 at watermark 16 s is dropped from both.
-- Outputs checked against Flink 2.3 (rows of one firing compared as a set).
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

SELECT k, HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS wstart,
       HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS wend,
       COUNT(*) AS n, SUM(v) AS total
FROM t
GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), k;
