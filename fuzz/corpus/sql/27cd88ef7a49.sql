-- LEAD over a stream is rejected, as in Flink.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts,MIN(d), MAX(d), AVG(d), SUM(k ORDER BY ts) FROM t;
