-- A Flink type tidemark does not have (ARRAY, MAP, ROW, BYTES, ...) is refused where the column
-- is declared, with the list of the types it has.
CREATE TABLE t (k STRING, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');
