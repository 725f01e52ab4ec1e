-- A literal regex is checked at planning: look-behind is not supported by tidemark's regex engine
-- (Flink, on Java's, supports it).
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(\<=a)b') FROM t;
