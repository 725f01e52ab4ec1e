-- FLOAT aggregated in a TUMBLE window: SUM adds up in FLOAT, AVG in DOUBLE and gives a FLOAT,
-- MIN/MAX/FIRST_VALUE/LAST_VALUE keep the type, LISTAGG takes a cast. Outputs checked against
-- Flink 2.3.
CREATE TABLE t (
  k STRING,
  f FLOAT,
  d DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/float_values.csv', 'format' = 'csv');

SELECT k, window_start, SUM(f), AVG(f), MIN(f), MAX(f), COUNT(f), FIRST_VALUE(f), LAST_VALUE(f),
  LISTAGG(CAST(f AS STRING))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
