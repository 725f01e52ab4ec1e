-- What a late-but-accepted row emits (spec §5): 5 s windows, watermark ts - 1 s, lateness 4 s, so
-- [0, 5) fires at 4.999 s and is cleaned up at 8.999 s.
--   a@1, b@2; a@6 lifts the watermark to 5 s: [0, 5) fires (a 5, b 7) before a@3.
--   a@3 (value 2) changes nothing: MAX stays 5, so nothing is emitted.
--   c@4 is the first row of key c in the fired window: +I, nothing to retract.
--   b@4.5 (value 8) updates b only: -U 7, +U 8. Key a is not touched.
--   a@12 lifts the watermark to 11 s: [5, 10) fires (a 1), [0, 5) is cleaned up; a@0 is late.
SET 'table.exec.emit.allow-lateness' = '4s';

CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/lateness_updates.csv',
  'format' = 'csv'
);

SELECT k, window_start, window_end, MAX(v) AS top
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
