-- A window join's late rows go to the late-records sink of their own source table, with that
-- table's columns and the metadata columns the sink declares. The streams of min_watermark.sql:
-- R5 (00:04, a) arrives when the join's watermark is 00:12, after its window [00:00, 00:10) fired,
-- so it goes to r's sink (operator WindowJoin, watermark 00:12). EXPLAIN says when the join fires
-- and where late rows go.
SET 'table.exec.late-records.sink.l' = 'late_l';
SET 'table.exec.late-records.sink.r' = 'late_r';

CREATE TABLE l (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/min_left.csv', 'format' = 'csv');
CREATE TABLE r (ts TIMESTAMP(3), k STRING, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/min_right.csv', 'format' = 'csv');
CREATE TABLE late_l (ts TIMESTAMP(3), k STRING, id STRING, late_reason STRING)
WITH ('connector' = 'print', 'print-identifier' = 'late l');
CREATE TABLE late_r (ts TIMESTAMP(3), k STRING, id STRING, late_reason STRING, `watermark` TIMESTAMP(3), operator STRING)
WITH ('connector' = 'print', 'print-identifier' = 'late r');

EXPLAIN
SELECT L.window_start, L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;

-- [00:00, 00:10): L1-R1, L1-R2, L2-R3; [00:10, 00:20): L4-R4.
SELECT L.window_start, L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
