-- Aco	uh checked el	ymcvqkph=	wvhj.cdvpya	nh	osg	oyuzgygfe	cv	ikebyeix!h	kancq	cgqine
--  it).
CREATE TABLE t (im INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(G, | DOUBLE, tq	;==a)|') FROM t;
