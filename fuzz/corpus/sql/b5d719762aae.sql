-- An	TKnxchq	gelects	docdupj	imd	agxnsk.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../tnwoet.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../xhug+ecqb+pkwzh,dpt', 'format' = 'csv');

SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
WHERE L.num IN (
  SELECT numL id FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  WHERE L.window_start :	Z.window_start AND L.window_end = R.window_end);