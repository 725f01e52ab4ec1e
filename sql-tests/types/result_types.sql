-- The result types of expressions over the new types, as DESCRIBE shows a view's columns. Each
-- is the type Flink 2.3's TYPEOF gives the same expression: TINYINT + TINYINT is TINYINT,
-- TINYINT / INT is INT, SMALLINT % TINYINT has the divisor's type, FLOAT + DOUBLE is FLOAT but
-- DOUBLE + FLOAT is DOUBLE, FLOAT with a DECIMAL is DOUBLE, COALESCE(FLOAT, DOUBLE) is DOUBLE
-- while CASE and IF of a FLOAT and a DOUBLE take the first branch's type, TINYINT * DECIMAL(2, 1)
-- is DECIMAL(6, 1); SUM and AVG of TINYINT, SMALLINT and FLOAT keep the type; a DATE shifted by
-- an interval is a DATE, a TIME a TIME; CAST of text to TIME(3) is TIME(3), TIME '12:34:56.5'
-- a TIME(1). Each type was compared with what Flink 2.3's TYPEOF gives the same expression.
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
) WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

CREATE VIEW v AS SELECT
  ti + ti AS tt, ti + si AS ts_, si * 1 AS si_int, ti / ti AS tdiv, ti / 3 AS tdiv_int,
  ti % si AS tmod, si % ti AS smod, ti * 1.5 AS tdec, ti + CAST(1 AS DECIMAL(5, 2)) AS tdec2,
  si + CAST(1 AS DECIMAL(5, 2)) AS sdec, -ti AS neg, ABS(ti) AS abs_t, ROUND(ti, -1) AS round_t,
  f + d AS fd, d + f AS df, f * d AS fmd, f + 1 AS f_int, f + CAST(1 AS BIGINT) AS f_big,
  f + 1.5 AS f_dec, f / 0 AS f_div, ROUND(f, 1) AS round_f, FLOOR(f) AS floor_f,
  POWER(f, 2) AS pow_f, COALESCE(f, d) AS coalesce_fd, COALESCE(ti, 1) AS coalesce_t,
  CASE WHEN k = 'a' THEN ti ELSE si END AS case_ts, CASE WHEN k = 'a' THEN f ELSE d END AS case_fd,
  CASE WHEN k = 'a' THEN d ELSE f END AS case_df, IF(k = 'a', f, d) AS if_fd, GREATEST(f, d) AS greatest_fd,
  GREATEST(ti, si) AS greatest_ts, NULLIF(f, 1) AS nullif_f, TIME '12:34:56.5' AS time_literal,
  DATE '2024-03-01' AS date_literal,
  dt + INTERVAL '1' DAY AS dt_day, dt + INTERVAL '1' HOUR AS dt_hour, tm + INTERVAL '1' SECOND AS tm_s,
  CAST('12:34:56.789' AS TIME(3)) AS tm3, CAST(ts AS DATE) AS ts_date, CAST(ts AS TIME) AS ts_time
FROM t;

DESCRIBE v;

CREATE VIEW w AS SELECT k, SUM(ti) AS sum_t, SUM(si) AS sum_s, AVG(ti) AS avg_t, AVG(si) AS avg_s,
  SUM(f) AS sum_f, AVG(f) AS avg_f, MIN(f) AS min_f, MAX(dt) AS max_dt, MIN(tm) AS min_tm
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

DESCRIBE w;
