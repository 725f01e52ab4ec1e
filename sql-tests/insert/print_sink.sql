-- INSERT INTO a print table writes the query's changelog to stdout, behind the table's
-- 'print-identifier'. With allowed lateness the aggregation emits updates, which a print table
-- shows as they come (-U/+U); the rows are those of tumble/lateness_updates.sql. The query's
-- INT maximum widens to the table's BIGINT column, as Flink casts implicitly.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/updates.csv',
  'format' = 'csv'
);

CREATE TABLE tops (k STRING, window_start TIMESTAMP(3), top BIGINT)
WITH ('connector' = 'print', 'print-identifier' = 'tops');

INSERT INTO tops
SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;

SET 'table.exec.emit.allow-lateness' = '4 s';

INSERT INTO tops
SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
