-- A named window must be declared in the WINDOW clause.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, SUM(v) OVER w2
FROM t
WINDOW w AS (ORDER BY ts);
