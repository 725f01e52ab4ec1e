-- A TIME value in a json line that does not read stops the job naming the file, line and field.
CREATE TABLE t (id INT, tm TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'data/bad_time.json', 'format' = 'json');

SELECT * FROM t;
