-- Planning error: a misspelled column ('amuont' for 'amount') is rejected before the job runs, with an
-- error naming the unknown column.
CREATE TABLE t (
  k STRING,
  amount INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/unknown_column.csv',
  'format' = 'csv'
);

SELECT k, amuont
FROM t;
