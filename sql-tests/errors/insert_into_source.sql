-- INSERT INTO the table the query reads would replace the file being read: a planning error.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

INSERT INTO t SELECT k, ts, v + 1 FROM t;
