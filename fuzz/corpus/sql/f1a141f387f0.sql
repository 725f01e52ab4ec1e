--	F	hnhcpbv	tcqcw	oq	fpadrcc	cw	gndpqxvz=	gjus,dfnxgb	hn	pmw	mbman	avmovb
--	#Djugg-#qh#-	VM"t.	wygkhuor	lg"-
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(2))
WITH ('connector' = 'filesystem', 'path' = 'ef', 'format' = 'csv');

SELECT REGEXP_EXTRACT(s, '?--	#D<=aٝ') FROM t;
