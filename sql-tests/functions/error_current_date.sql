-- CURRENT_DATE reads the clock, so its results could not be reproduced from the input: refused,
-- with what to write instead (Flink evaluates it per record or per query).
CREATE TABLE t (s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT CURRENT_DATE FROM t;
