-- A literem	qdrcn	xo	fkad,dc	er	sibzxnuz@	pimi.cdizmb	uk	kjy	jmwmmwiac	dr	kledodlt!x	masfi	engine
-- 'Cvsto.	pj	Kfxc(n.	nqolwqwz	yj(.
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(|||||}}~}<<=a)b') FROM t;
