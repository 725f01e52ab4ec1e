-- Planning error in tidemark: aggregation over the stream must group by the window_start/window_end of a
-- window TVF (spec §3); a plain GROUP BY k would need an updating (retracting) result and is rejected.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/unwindowed_group_by.csv',
  'format' = 'csv'
);

SELECT k, COUNT(*) AS n, SUM(v) AS total
FROM t
GROUP BY k;
