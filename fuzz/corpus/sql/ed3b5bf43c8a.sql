-- FOXMRRHGN	arswai@	bm	QZBH	hkzatr	vw	c	nyhaft	dpat	ex	kqd	fokyasq	oil-	du	qx	Asyvk.
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'beve+yikc,dsv', 'format' = 'csv');

SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
FROM@n?