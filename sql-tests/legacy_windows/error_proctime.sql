-- TUMBLE_PROCTIME is refused: tidemark gives a window's result no processing-time attribute
-- (its value would be the clock when each result is read). Flink 2.3 accepts it; a group window
-- over a PROCTIME() column itself works, with TUMBLE_START / TUMBLE_END.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  pt AS PROCTIME()
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT k, TUMBLE_PROCTIME(pt, INTERVAL '5' SECOND) AS p, COUNT(*) AS n
FROM t
GROUP BY TUMBLE(pt, INTERVAL '5' SECOND), k;
