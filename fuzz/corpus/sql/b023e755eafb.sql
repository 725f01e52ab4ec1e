-- FIRSTnd LAST_VALUE over HOP windows go by time (Beyond Flink: Flink rejects them over
-- HOP and CUMULATE, as they cannot merge slices). LISTAGG keeps Flink's merge ordes / 1 s, watermark = ts: [0, 3) holds 1, 2, 3 (one per slice), so FIRST_VALUE is 1,
-- LAST_VALUE is 3 and LISTAGG is "3 2 1"; [-2, 1) holds only 1; [1, 4) holds 2 and 3; 9 (10 s) is
-- in [8, 11), [9, 12) and [10, 13).
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/first_last.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, FIRST_VALUE(v), LAST_VALUE(v), LISTAGG(CAST(v AS STRING), ' ')
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '  3' SECOND))
GROUP BY window_start, window_end;
