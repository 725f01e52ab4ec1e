-- INSERT INTO checks the query's columns against the table's: a BIGINT does not narrow to INT.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

CREATE TABLE counts (k STRING, n INT) WITH ('connector' = 'blackhole');

INSERT INTO counts
SELECT k, COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
