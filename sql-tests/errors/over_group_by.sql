-- OVER aggregates and GROUP BY in one SELECT are rejected.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, SUM(v) OVER (ORDER BY ts)
FROM t
GROUP BY k;
