-- CURRENT_WATERMARK takes a rowtime attribute, as in Flink.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, CURRENT_WATERMARK(k) FROM t;
