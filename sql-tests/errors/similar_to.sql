-- SIMILAR TO is refused as not supported yet, with what to write instead, rather than as an unknown
-- expression (LIKE itself is supported).
CREATE TABLE s (v STRING) WITH ('connector' = 'filesystem', 'path' = 'data/bad_decimal.csv', 'format' = 'csv');

SELECT v SIMILAR TO 'a(b|c)%' FROM s;
