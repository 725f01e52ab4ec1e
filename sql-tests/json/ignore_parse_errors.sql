-- 'json.ignore-parse-errors' = 'true': a value that does not convert becomes NULL ("two" as INT),
-- a line that is not a JSON object is skipped (the unterminated object, plain text, an array),
-- and all of it is counted in the summary. A nested object in a STRING column is its JSON text.
-- A JSON number with a fraction in an INT column is cut toward zero, as Flink does: 4.0 is 4.
-- The row whose rowtime does not parse ("yesterday") cannot be placed in time: skipped and counted
-- (Flink stops the job on a NULL rowtime). Without that row, Flink 2.3 gives the same four rows.
CREATE TABLE t (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/messy.json', 'format' = 'json',
      'json.ignore-parse-errors' = 'true');

SELECT ts, k, v FROM t;
