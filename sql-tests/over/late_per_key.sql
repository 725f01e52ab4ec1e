-- The OVER late rule is per key and does not look at the watermark (spec §4). Watermark ts - 1 s.
--   a@10, b@11; a@20 lifts the watermark to :19: a@10 and b@11 go out. b@12 arrives behind the
--   watermark but after b's last emitted rowtime (:11): kept, out at the next advance. a@18 is
--   behind the watermark too, but a emitted only :10, so it is kept; so is b@18.
--   a@25 lifts the watermark to :24: b@12, a@18, b@18, a@20 go out in rowtime order (keys at the
--   same rowtime in the order of their first row; Flink's order there is its timer heap's).
--   b@26 lifts it to :25: a@25 goes out. The end lets out b@26. Checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/late_per_key.csv',
  'format' = 'csv'
);

SELECT k, ts, v,
       COUNT(*) OVER w AS n, SUM(v) OVER w AS total
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
