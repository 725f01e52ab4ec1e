-- A legacy SESSION window takes no emit strategy: with allowed lateness and late firing Flink 2.3
-- refuses it ("Session window doesn't support EMIT strategy currently."), and with lateness alone
-- it keeps late rows without emitting updates, so tidemark refuses both. The SESSION window TVF
-- takes allowed lateness (sql-tests/session/lateness_merge.sql). Checked against Flink 2.3.
SET 'table.exec.emit.allow-lateness' = '10 s';
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

SELECT k, SESSION_START(ts, INTERVAL '3' SECOND) AS wstart, SESSION_END(ts, INTERVAL '3' SECOND) AS wend,
       COUNT(*) AS n
FROM t
GROUP BY SESSION(ts, INTERVAL '3' SECOND), k;
