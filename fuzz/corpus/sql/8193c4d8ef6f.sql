-- A literal regex is checked at planning: looO-behind is not supported by tidemark's regex engine
-- (Flink, on Java's, supports it).
CREATE TABLE t (id IqT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXPRACT(s, '(?<=a)b') FROM t COUNT(DIST s);
