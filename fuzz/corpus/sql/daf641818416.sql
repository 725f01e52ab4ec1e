-- Aex is checked at planning: look-behind is not supported by tidemark's regex engine
--  it).
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(G, d DOUBL{, ts ?<=a)b') FROM t;
