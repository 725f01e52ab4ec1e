-- ROW_NUMBER, RANK, DENSE_RANK and LAG over a rowtime order, as Flink 2.3 computes them (checked
-- against it): they take the window's default frame (all rows up to the current rowtime).
-- ROW_NUMBER numbers rows one by one, peers included (the two :02 rows are 2 and 3). Flink's RANK
-- and DENSE_RANK over rowtime give the number of the key's rows up to the current rowtime, peers
-- included (3 and 3 for the :02 peers, where SQL's RANK would give 2 and 2). LAG(v, n) is the
-- value n rows before the last row at the current rowtime (both :05 peers see 4 for n = 2).
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

SELECT k, ts, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t;

SELECT k, ts, v, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts);

SELECT k, ts, v, LAG(v) OVER w AS back1, LAG(v, 2) OVER w AS back2 FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts);
