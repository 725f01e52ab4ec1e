-- A legacy group window's HOP_ROWTIME feeds a window TVF: the view's rt (window end - 1 ms) is a
-- rowtime attribute, so TUMBLE(TABLE hopped, DESCRIPTOR(rt), ..) windows the HOP results.
-- Each 10 s tumble gets the two keys' results of two HOP windows. Outputs checked against Flink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW hopped AS
SELECT k, HOP_ROWTIME(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS rt, SUM(v) AS total
FROM t
GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), k;

SELECT window_start, window_end, COUNT(*) AS parts, SUM(total) AS total
FROM TABLE(TUMBLE(TABLE hopped, DESCRIPTOR(rt), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
