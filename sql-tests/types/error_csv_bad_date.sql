-- A DATE field that does not read stops the job with the file, line and field, and the record
-- with a caret under the field, as for every other type.
CREATE TABLE t (id INT, dt DATE, tm TIME)
WITH ('connector' = 'filesystem', 'path' = 'data/bad_date.csv', 'format' = 'csv');

SELECT * FROM t;
