-- Spec §3: HAVING filters window groups with three-valued logic (COUNT(*) > 1 OR SUM(x) > 100 keeps a
-- group whose SUM is NULL because the left side is TRUE) and expressions over aggregates: arithmetic
-- with NULL propagation, integer division truncating toward zero, DOUBLE division.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  x INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/having_expr.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
);

SELECT k, window_start, COUNT(*) AS n, SUM(x) * 2 + 1 AS s21, CAST(COUNT(*) AS DOUBLE) / 3 AS n3,
       MAX(x) - MIN(x) AS spread, SUM(x) / COUNT(*) AS int_avg, AVG(CAST(x AS DOUBLE)) AS dbl_avg
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k
HAVING COUNT(*) > 1 OR SUM(x) > 100;
