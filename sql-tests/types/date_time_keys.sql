-- DATE and TIME as group keys of a TUMBLE window and aggregated: MIN, MAX, FIRST_VALUE and
-- LAST_VALUE keep the type. Rows of one window fire together; Flink's order among them was
-- compared as a set. Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  dt DATE,
  tm TIME,
  tm3 TIME(3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/days.csv', 'format' = 'csv');

SELECT k, window_start, MIN(dt), MAX(dt), MIN(tm3), MAX(tm), FIRST_VALUE(dt), LAST_VALUE(tm3), COUNT(DISTINCT dt)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT dt, window_start, COUNT(*), MAX(tm3)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY dt, window_start, window_end;
