-- EXPLAIN of a legacy group window shows the window TVF aggregation it is bound as: the same plan
-- as FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY
-- window_start, window_end, k (checked against that form; Flink 2.3 prints its own plan format).
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

EXPLAIN
SELECT k, HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS wend, COUNT(*) AS n
FROM t
GROUP BY k, HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND);
