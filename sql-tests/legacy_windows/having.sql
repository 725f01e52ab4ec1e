-- HAVING over a legacy group window: it may filter on aggregates and on the window
-- (TUMBLE_END); unaliased columns are named EXPR$n as in Flink. [0, 10) is dropped (its end is
-- not after 10:00:10), a [10, 20) has SUM 6 and b 7; all of [20, 30) passes.
-- Outputs checked against Flink 2.3.
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

SELECT TUMBLE_END(ts, INTERVAL '10' SECOND), k, SUM(v), COUNT(*) * 10
FROM t
GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)
HAVING SUM(v) > 5 AND TUMBLE_END(ts, INTERVAL '10' SECOND) > TIMESTAMP '2024-01-01 10:00:10';
