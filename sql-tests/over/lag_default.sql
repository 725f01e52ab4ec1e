-- LAG(x, n, default): x of the row n rows back in the key, or the default, evaluated on the
-- current row, when the key has no row that far back. A NULL x n rows back is NULL, not the
-- default (a at 7 s: p at 6 s is NULL). The default must have x's type (a string literal for a
-- STRING; CAST a number). The result keeps x's nullability: Flink 2.3 gives it the default's, so
-- with a NOT NULL default there its job fails (INT) or prints -1.0 (DOUBLE) on a NULL n rows back;
-- the rows here were checked against Flink 2.3 with nullable defaults (p * 10, CAST(NULL AS INT))
-- and, up to its first NULL, with the literal ones.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, p INT, d DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/distinct_filter.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT ts, k, p, LAG(p, 1, p * 10) OVER w, LAG(p, 1, CAST(NULL AS INT)) OVER w, LAG(p, 1, -1) OVER w,
  LAG(s, 2, 'none') OVER w, LAG(d, 1, CAST(0 AS DOUBLE)) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts);
