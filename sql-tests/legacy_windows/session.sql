-- Legacy group window SESSION(ts, gap) with a key: a session per key, as the SESSION window TVF
-- with PARTITION BY k. 3 s gap: a [1, 10) from rows 1, 4, 7; b [2, 5), [8, 14) (8, 11), [22, 27);
-- a [13, 16), [21, 24). SESSION_START, SESSION_END, SESSION_ROWTIME read the session.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT k,
       SESSION_START(ts, INTERVAL '3' SECOND) AS wstart,
       SESSION_END(ts, INTERVAL '3' SECOND) AS wend,
       SESSION_ROWTIME(ts, INTERVAL '3' SECOND) AS rt,
       COUNT(*) AS n, LISTAGG(CAST(v AS STRING)) AS vs
FROM t
GROUP BY SESSION(ts, INTERVAL '3' SECOND), k;
