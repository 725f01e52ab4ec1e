-- A window join whose key is a DATE: rows of the same minute and day meet. Rows fire together at
-- the window's end; Flink's order among them was compared as a set. Outputs checked against
-- Flink 2.3.
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

CREATE TABLE u (
  k STRING,
  dt DATE,
  tm TIME,
  tm3 TIME(3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/days.csv', 'format' = 'csv');

SELECT a.dt, a.window_start, a.ti, a.f, b.tm3
FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) a
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) b
ON a.dt = b.dt AND a.window_start = b.window_start AND a.window_end = b.window_end;
