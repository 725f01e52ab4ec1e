-- The tableau result mode in a script: a table with an op column, drawn
-- row by row as the changelog arrives (updates as -U/+U rows), widths
-- fixed by the column types; long strings are cut with '...'.
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.exec.emit.allow-lateness' = '4s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/updates.csv',
  'format' = 'csv'
);

SELECT k, window_start, MAX(v) AS top, CAST(NULL AS DOUBLE) AS nothing
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;

SELECT k || ' is a key with a rather long description' AS description FROM t WHERE v > 6;
