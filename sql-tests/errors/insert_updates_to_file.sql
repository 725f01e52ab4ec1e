-- A query that emits updates cannot append to a file: a written row cannot be taken back. The
-- error says to declare a primary key (then the file keeps the last row per key).
SET 'table.exec.emit.allow-lateness' = '4 s';

CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

CREATE TABLE tops (k STRING, window_start TIMESTAMP(3), top INT)
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

INSERT INTO tops
SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
