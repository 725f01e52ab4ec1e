-- Without 'json.ignore-parse-errors', a value that does not convert stops the query with file,
-- line and field; the rows before it have gone out.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '../json/data/messy.json', 'format' = 'json');

SELECT ts, k, v FROM t;
