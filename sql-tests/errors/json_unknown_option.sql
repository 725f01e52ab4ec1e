-- A json.* option the format does not know fails at CREATE TABLE, with a caret under it and the nearest key it does know.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '../json/data/messy.json', 'format' = 'json',
      'json.ignore-parse-error' = 'true');

SELECT ts, k, v FROM t;
