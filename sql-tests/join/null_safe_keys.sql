-- IS NOT DISTINCT FROM on window join keys: NULL meets NULL, so in [00:10, 00:20) L5 (NULL)
-- joins R3 (NULL), which `=` never joins (null_keys.sql). Values compare as with `=`.
-- Windows as in null_keys.sql: [00:00) left 1, NULL, 3 / right 1, 2; [00:10) left 1, NULL /
-- right NULL, 2; [00:20) left 1 alone. Outputs checked against Flink 2.3 (as a set per window).
CREATE TABLE l (ts TIMESTAMP(3), k INT, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/null_left.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE r (ts TIMESTAMP(3), k INT, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/null_right.csv', 'format' = 'csv', 'csv.null-literal' = '');

-- FULL JOIN: [00:00): L1-R1, L2 and L3 padded, R2 padded; [00:10): L4 padded, L5-R3, R4 padded;
-- [00:20): L6 padded.
SELECT COALESCE(L.window_start, R.window_start) AS window_start, L.id, L.k, R.id, R.k
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k IS NOT DISTINCT FROM R.k;

-- INNER JOIN: L1-R1 and L5-R3.
SELECT L.window_start, L.id, L.k, R.id, R.k
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.k IS NOT DISTINCT FROM R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- NOT EXISTS with IS NOT DISTINCT FROM: L2, L3, L4, L6 (L5 has its NULL partner R3, as the inner
-- join above shows). Flink 2.3 keeps L5 here too, against its own inner join: its anti join
-- compares the key with `=`; tidemark follows SQL.
SELECT id, k, window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE NOT EXISTS (SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
                  WHERE L.k IS NOT DISTINCT FROM R.k AND L.window_start = R.window_start AND L.window_end = R.window_end);
