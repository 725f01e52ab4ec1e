-- TIMESTAMPDIFF and TIMESTAMPADD take SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR.
CREATE TABLE t (k STRING, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');

SELECT TIMESTAMPDIFF(FORTNIGHT, ts, ts) FROM t;
