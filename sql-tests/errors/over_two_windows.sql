-- Two different OVER windows in one SELECT: each would need its own ordering pass, so it is rejected with the span of the second.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), MAX(v) OVER (ORDER BY ts)
FROM t;
