-- RANGE over a time attribute takes an INTERVAL, not a row count.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM t;
