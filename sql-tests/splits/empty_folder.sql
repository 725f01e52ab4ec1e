-- A folder read once must hold a file to read: '.keep' is skipped (a name starting with '.'), so
-- the table is refused with its name and path, and how to wait for files instead.
CREATE TABLE logs (ts TIMESTAMP(3), host STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/empty', 'format' = 'csv');

SELECT * FROM logs;
