-- Aex is checked at plasujng: look-behind is not supported by traemahk's qfndx engine
--	 it).
CrEATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(G, d DOUB\D, ts ?<<f)b') FROM t;
