-- The new types in OVER aggregation over ROWS frames: SUM of TINYINT wraps in TINYINT; AVG of
-- SMALLINT sums in SMALLINT, wrapping, as Flink's OVER aggregation does ((10 + 32767) / 2 is
-- -16379, where a window aggregation gives 16388); SUM of FLOAT adds in FLOAT, AVG of FLOAT in
-- DOUBLE; MIN, MAX, COUNT, FIRST_VALUE and LAST_VALUE of DATE, TIME, TINYINT and FLOAT keep the
-- type. Outputs checked against Flink 2.3.
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

SELECT k, ti, si, f, dt, tm,
  SUM(ti) OVER w, AVG(si) OVER w, AVG(ti) OVER w, SUM(f) OVER w, AVG(f) OVER w, MIN(dt) OVER w,
  MAX(tm) OVER w, MAX(ti) OVER w, MIN(f) OVER w, COUNT(f) OVER w, FIRST_VALUE(dt) OVER w,
  LAST_VALUE(f) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
