-- RAND, RAND_INTEGER and UUID are refused: their results could not be reproduced.
CREATE TABLE t (n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT n, RAND() FROM t;
