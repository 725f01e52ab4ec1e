-- NULL keys in window joins. A NULL key equals nothing, so L2, L5 and R3 never find a partner.
-- Windows (TUMBLE 10 s, all fired at end of input): [00:00, 00:10) left 1, NULL, 3 and right 1,
-- 2; [00:10, 00:20) left 1, NULL and right NULL, 2; [00:20, 00:30) left 1 and no right rows.
-- NOT IN is NULL-aware, as in SQL: `x NOT IN (...)` is unknown, so the row is dropped, when x is
-- NULL and the subquery's window has rows, or when those rows include a NULL; it is true when the
-- window has no right rows. So NOT IN keeps L3 (3 is not in {1, 2}) and L6 (empty window) only,
-- while NOT EXISTS keeps every row without an equal partner: L2, L3, L4, L5, L6.
CREATE TABLE l (ts TIMESTAMP(3), k INT, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/null_left.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE r (ts TIMESTAMP(3), k INT, id STRING, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'data/null_right.csv', 'format' = 'csv', 'csv.null-literal' = '');

-- FULL JOIN: [00:00): L1-R1, L2 and L3 padded, R2 padded; [00:10): L4, L5, R3, R4 all padded;
-- [00:20): L6 padded.
SELECT COALESCE(L.window_start, R.window_start) AS window_start, L.id, L.k, R.id, R.k
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;

-- IN: L1 only (L4's window has no right 1).
SELECT id, k, window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE k IN (SELECT k FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
            WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- NOT IN: L3, L6.
SELECT id, k, window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE k NOT IN (SELECT k FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
                WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- NOT EXISTS: L2, L3, L4, L5, L6; an extra WHERE condition on the outer rows drops L3.
SELECT id, k, window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE NOT EXISTS (SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
                  WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end)
  AND id <> 'L3';
