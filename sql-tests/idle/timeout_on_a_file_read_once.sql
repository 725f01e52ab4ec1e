-- An idle timeout on a table read to its end cannot act (spec §8: bounded reads are never idle),
-- so the run says so instead of taking it in silence; the rows are those of any read.
CREATE TABLE t (arrived TIMESTAMP(3), ts TIMESTAMP(3), id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/union/b.csv', 'format' = 'csv',
      'scan.watermark.idle-timeout' = '1 s');

SELECT id FROM t;
