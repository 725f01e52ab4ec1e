-- The trace of the session merges of lateness_merge.sql: FIRE, REFIRE (a row inside a fired
-- session), MERGE (several sessions joined, or a fired one whose bounds change), LATE, CLEANUP.
-- Growing one open session is not a MERGE.
SET 'table.exec.emit.allow-lateness' = '20 s';
SET 'tidemark.trace' = 'true';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_merge.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
