-- An option tidemark would not act on is refused where it is written, never
-- accepted in silence: Flink's print connector has 'sink.parallelism', tidemark's
-- does not (a query's output is one stream).
CREATE TABLE out (k STRING, n BIGINT) WITH (
  'connector' = 'print',
  'sink.parallelism' = '2'
);
