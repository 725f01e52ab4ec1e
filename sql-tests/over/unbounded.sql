-- UNBOUNDED frames, with and without PARTITION BY, over the rows of range_ties.sql: RANGE gives
-- peers one result (the :02 and :05 pairs), ROWS a running result row by row.
-- Both checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/range_ties.csv',
  'format' = 'csv'
);

SELECT k, ts, v,
       SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS all_rows
FROM t;

SELECT k, ts, v,
       SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
       MAX(v) OVER (PARTITION BY k ORDER BY ts) AS top
FROM t;
