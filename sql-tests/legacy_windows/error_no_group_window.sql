-- A window's auxiliary call (TUMBLE_END) needs the group window in GROUP BY. Flink 2.3 refuses
-- this query too ("Call to auxiliary group function 'TUMBLE_END' must have matching call to group
-- function '$TUMBLE' in GROUP BY clause"). Checked against Flink 2.3.
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

SELECT k, TUMBLE_END(ts, INTERVAL '5' SECOND) AS wend, COUNT(*) AS n
FROM t
GROUP BY k;
