-- Window Top-N ordered by a FLOAT, showing its TINYINT: the three largest FLOATs of the hour.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ti TINYINT,
  si SMALLINT,
  f FLOAT,
  d DOUBLE,
  dt DATE,
  tm TIME,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/mixed.csv', 'format' = 'csv');

SELECT * FROM (
  SELECT window_start, k, f, ti,
    ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY f DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)))
WHERE rn <= 3;
