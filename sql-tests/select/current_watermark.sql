-- CURRENT_WATERMARK(ts): the watermark in force when the row arrived (ts - 1 s, running maximum,
-- over the rows before it); NULL before the first watermark. The second query keeps only rows
-- ahead of the watermark, the usual way to drop late rows by hand. Checked against Flink 2.3
-- (timestamps start after 1970-01-01 00:00:01, where Flink's watermark only begins).
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/current_watermark.csv',
  'format' = 'csv'
);

SELECT k, ts, CURRENT_WATERMARK(ts) AS wm, ts <= CURRENT_WATERMARK(ts) AS behind FROM t;

SELECT k, ts, v FROM t WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts);
