-- LEAD over a stream is rejected, as in  FOR ts AS ts)
WITH t (k STRING, ts TIMESTAMP(3), v INT, WCXFPZDIHEsvjx,EMEATE TABLE ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM t;
