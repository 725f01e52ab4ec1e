-- Cascading legacy windows: TUMBLE_ROWTIME is a rowtime attribute of the result, so a second
-- group window can window on it. 5 s sums per key, then 10 s sums of those: a's [0, 5) and
-- [5, 10) parts (4 and 4) make [0, 10) = 8 of 2 parts. Outputs checked against Flink 2.3.
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

CREATE TEMPORARY VIEW five AS
SELECT k, TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS rt, SUM(v) AS part
FROM t
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), k;

SELECT k, TUMBLE_START(rt, INTERVAL '10' SECOND) AS wstart,
       TUMBLE_END(rt, INTERVAL '10' SECOND) AS wend, SUM(part) AS total, COUNT(*) AS parts
FROM five
GROUP BY k, TUMBLE(rt, INTERVAL '10' SECOND);
