-- A bad row in one file of a folder is reported with that file's name and line: b.csv line 2
-- holds 'x' where n is an INT. a1 and b1 go out first (both at -inf, a.csv listed first); a2 then
-- waits for b.csv's next row, which is the bad one, and the error ends the query.
CREATE TABLE logs (
  ts TIMESTAMP(3),
  host STRING,
  n INT,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/mixed', 'format' = 'csv');

SELECT * FROM logs;
