-- ROW_NUMBER, RANK, DENSE_RANK and LAG over an OVER window are not supported yet: a planning error
-- with a caret (no internal error). A scalar function takes no OVER at all.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) FROM t;
