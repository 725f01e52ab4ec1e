-- DOUBLE SUM and AVG group their additions as Flink's two-phase window aggregation does, so the
-- bits match Flink: rows buffered since the last flush are summed into a partial, which is added to
-- the stored sum when the watermark reaches a due window. g1 = (0.1 + 0.2) + 0.3; g2's first row is
-- flushed with g1's window, so g2 = 0.3 + (0.2 + 0.1) = 0.6000000000000001; g3 = 0.1 + (0.3 + 0.2) = 0.6.
-- The result never depends on batch boundaries.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  d DOUBLE,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/double_sum_order.csv',
  'format' = 'csv'
);

SELECT k, SUM(d) AS s, AVG(d) AS a, LISTAGG(CAST(d AS STRING), ' ') AS arrival
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
