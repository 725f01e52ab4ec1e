-- A CUMULATE window is the window before it plus its newest slices, kept as a running merge that
-- adds slices oldest first, as merging the window afresh does: the DOUBLE sums (added in that
-- order) and LISTAGG come out as Flink's. 6 s cycles growing by 1 s, watermark ts - 1 s;
-- checked against Flink 2.3.
--   a@6.3 lifts the watermark to 5.3 s, so [0, 2) to [0, 5) have fired. a@1.5 (5) and b@4.8 (30)
--   then count only in [0, 6), after every slice merged so far: a lists 1 2 3 5, b 10 20 30, and
--   a's sum is ((0.1 + 0.2) + 0.3) + 0.5 = 1.1.
--   a@9 lifts the watermark to 8 s: [6, 7) and [6, 8) fire with a: 4, so b@7.7 counts from
--   [6, 9) on. The cycle [12, 18) holds a@12 alone.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/long_cycle.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v * 0.1e0) AS total, MAX(v) AS hi,
       LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, k;
