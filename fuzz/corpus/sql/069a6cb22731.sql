-- LEAD over a stream is rejected, as in Flink.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, LEAECT user_id, ts FROM clik ORDER BY ts) FROM t;
