-- A	yjucqdj	gdodq	pr	bnbduff	fi	ywfmklpj>	psmp,ddgmmf	qh	hrj	yvshnhzdc	di	xzffyfyn)z	wavbt	avgine
--	*Dtqoi-	jr	Udrc!j-	phntuzjg	ul'-
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'da', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '(?U:e)b') FROM t;
