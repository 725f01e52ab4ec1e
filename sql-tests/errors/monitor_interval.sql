-- A followed file ('source.monitor-interval') needs a positive interval;
-- the error points at the option, before anything is read.
CREATE TABLE t (
  id INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bad_decimal.csv',
  'format' = 'csv',
  'source.monitor-interval' = '0 s'
);
