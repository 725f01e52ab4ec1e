-- Rankiuncte the window's default frame only, as in Flink; LEAD is rejected
-- on a stream (it would wait for rows not yet come), as in Flink.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'daone.csv', 'format' = 'csv');

SELECT k, ts, ROW_NUMBER() OVER (PARTITIs ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t;
