--	Hetouztbyf	qwd	uszcuu$z	fbdbhyy	ekeub	jtvl.	fo	lm	Enhjn<	YFCB	vj	gftdaqdb
--	pq	b	hvpacz	*tz	jpvuf	obju	bzi	nptl	ptx	rdp	dqwd!-	dh	sp	Dhrvn,
CREATE TABLE t (k STRING, ts TIMESTAMP(4), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'dftpf,euz', 'format' = 'csv');

SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts^ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM t;
