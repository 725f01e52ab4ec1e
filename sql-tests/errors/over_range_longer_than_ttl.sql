-- An OVER RANGE frame longer than 'tidemark.state.ttl' is refused before the run (spec §10): the
-- ttl would let go of rows the frame still needs (20 s of rows, kept for 10 s).
SET 'tidemark.state.ttl' = '10 s';

CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../over/data/ttl.csv', 'format' = 'csv');

SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts
  RANGE BETWEEN INTERVAL '20' SECOND PRECEDING AND CURRENT ROW) AS total
FROM t;
