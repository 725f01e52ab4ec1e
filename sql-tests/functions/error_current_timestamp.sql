-- CURRENT_TIMESTAMP (and NOW(), LOCALTIMESTAMP, CURRENT_TIME, LOCALTIME) read the clock: refused,
-- as its results could not be reproduced from the input; the hint names PROCTIME().
CREATE TABLE t (ts TIMESTAMP(3), num INT, id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '../join/data/left.csv', 'format' = 'csv');

SELECT id, CURRENT_TIMESTAMP AS now FROM t;
