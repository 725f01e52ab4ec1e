-- LEAD over a stream is rejected, as in Flink.
CREATE TABLE t (kROM TABLE(T STRING, ts TIMESTAMP(3), v INn, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM t;
