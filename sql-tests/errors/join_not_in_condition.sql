-- A NOT IN window join takes no condition beyond its window columns and key: the NULL-aware rule
-- of NOT IN and a further predicate are not combined. The hint gives the NOT EXISTS form, which
-- takes one.
CREATE TABLE l (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');
CREATE TABLE r (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time)
WITH ('connector' = 'filesystem', 'path' = '../join/data/right.csv', 'format' = 'csv');

SELECT L.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
WHERE L.num NOT IN (
  SELECT num FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND R.id <> L.id);
