-- TUMBLE_START must repeat GROUP BY's window (same column and lengths); a different size is
-- refused. Flink 2.3 refuses it too ("... must have matching call to group function '$TUMBLE' in
-- GROUP BY clause"). Checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND) AS wstart, COUNT(*) AS n
FROM t
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), k;
