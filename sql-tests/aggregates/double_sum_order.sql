-- Spec §1/§3 determinism for DOUBLE: floating-point addition is not associative, so SUM and AVG over
-- DOUBLE add the values one by one in arrival order ((0.1 + 0.2) + 0.3 = 0.6000000000000001,
-- (0.3 + 0.2) + 0.1 = 0.6), independent of batch boundaries and of when other windows fire.
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
