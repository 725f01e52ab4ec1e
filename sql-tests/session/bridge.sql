-- SESSION merging (spec §2), 3 s gap, watermark ts - 5 s, key a:
--   1 s opens [1, 4); 6 s opens [6, 9). 4 s arrives out of order: [4, 7) touches [1, 4) and
--   overlaps [6, 9), bridging them into [1, 9).
--   10 s opens [10, 13); 16.5 s lifts the watermark to 11.5 s, firing [1, 9) (end - 1 = 8.999).
--   8 s arrives far behind the watermark, but [8, 11) overlaps the open [10, 13): kept, [8, 13).
--   5 s then touches [8, 13) ([5, 8) ends where it starts): kept, [5, 13); 2 s likewise touches
--   it: [2, 13).
-- Key b has one row, at 12 s. Key c's only row, at 1 s, comes when the watermark is 11.5 s: its
-- session [1, 4) touches nothing open and ended long ago, so it is late.
-- The end of input fires a's [2, 13) (10 8 5 2), b's [12, 15) and a's [16.5, 19.5).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bridge.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, window_time, COUNT(*) AS n, LISTAGG(v, ' ') AS vs
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end, window_time;
