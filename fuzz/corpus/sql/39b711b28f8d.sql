-- RANGE frames w with the same rowtime (peers), as Flink does; ROWS frames count
-- rows in arrival order. Watermark ts - 1 s, so peers arrive before their rowtime is let out. 2 s RANGE:
--   :01 -> 1; the two :02 rows are peers: both see 1+2+3 = 6; :03 sees :01..:03 = 10;
--   the :05 peers see :03..:05 = 4+5+6 = 15; :06 sees :04..:06 = 18; :09 sees :07..:09 = 8.
-- b is its own partition: 100.
-- Checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/range_ties.csv',
  'format' = 'csv'
);

SELECT k, ts, v,
       SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS range_sum,
       COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS range_n
FROM t;
