-- NULLs and equal rowtimes in a window Top-N, as Flink 2.3 ranks them (each result checked
-- against it). Window [0 s, 10 s) holds, in arrival order: a@1 v=1, a@5 v=2, a@5 v=3, b@2 NULL,
-- b@2 v=4, a@5 v=4, b@3 NULL, a@1 v=5; a@30 v=9 closes it and is alone in [30 s, 40 s).
--
-- Deduplication keeping the last row (ORDER BY ts DESC, rownum = 1): a's last rowtime, 5 s, has
-- three rows; Flink keeps the latest to arrive (v=4), since its deduplication lets a later row
-- with an equal rowtime replace the one kept. b keeps its 3 s row.
-- Keeping the first row (ASC): a's rows at 1 s are v=1 then v=5; the first to arrive, v=1, stays.
-- A Top-2 by ts DESC is a ranking, not a deduplication: equal rowtimes rank in arrival order
-- (a: v=2 then v=3; b: the 3 s row, then the first 2 s row).
-- NULL is the smallest value: last under DESC, first under ASC, unless NULLS FIRST or NULLS LAST
-- says otherwise; equal values rank in arrival order (b's v=4 before a's).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/nulls_ties.csv',
  'format' = 'csv',
  'csv.null-literal' = 'N'
);

SELECT window_start, k, ts, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum = 1;

SELECT window_start, k, ts, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts ASC) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 1;

SELECT window_start, k, ts, v, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 2;

SELECT window_start, k, ts, v, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 10;

SELECT window_start, k, ts, v, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v ASC) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 10;

SELECT window_start, k, ts, v, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC NULLS FIRST) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 10;

SELECT window_start, k, ts, v, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v ASC NULLS LAST) AS rownum
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rownum <= 10;
