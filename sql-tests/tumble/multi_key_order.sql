-- Spec §3 output order: rows of one firing come out by window_end, then by key in the order of
-- each key's first row in that window (not alphabetical, not global first appearance). One row
-- lifts the watermark past two window ends at once; a late row (§1/§3) is dropped.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/multi_key_order.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, k, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING)) AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
