-- E firing  emit strategies on them too).
SET 'tidemark.emit.early-fire' = '10 s';

CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, window_start< window_end, COUNT(*)
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
