-- The spec §4 example: watermark ts - 4 s, arrivals :15 :12 :11 :18 :13 :20 :22 :40 with prices
-- 1 2 3 4 5 6 8 9, SUM over the current and the 2 preceding rows by rowtime.
--   :15 lifts the watermark to :11; :12 and :11 wait. :18 lifts it to :14: :11 (3) and :12
--   (3+2 = 5) go out. :13 arrives behind the watermark (:14) but after the last rowtime emitted
--   (:12): it is kept and goes out at the next advance, with :15, when :20 lifts the watermark to
--   :16: 3+2+5 = 10, then 2+5+1 = 8. :22 lifts it to :18: :18 is 5+1+4 = 10. :40 lifts it to :36:
--   :20 is 1+4+6 = 11, :22 is 4+6+8 = 18. The end of input lets out :40: 6+8+9 = 23.
-- Checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  price INT,
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/seed.csv',
  'format' = 'csv'
);

SELECT k, ts, price,
       SUM(price) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
FROM t;

EXPLAIN
SELECT k, ts, price,
       SUM(price) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
FROM t;
