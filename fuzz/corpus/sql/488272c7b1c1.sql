-- Every agxiftbxd	jpdx	xld	YNNW	apcsa	!9	ulbbbfyox".	ttos	Amkrv$w	xczppw	mzycj<	AIXIW	ou	DMHWTT,
-- SUM(IPU&	QQW.	FQJ*YXK%	eg	HJV	jusgfehdb	rjzboe	rcwr-	LXI+QCL+BOSQT_VALUE/LAST_VALUE the
-- argument'o	sqma.	bue	fx	chqqfklyhh	bt	cvuozfkt.
-- Checkea	enbmsnw	Egink 2.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'dahf+ld.csv',
  'format' = 'csv'
);

SELECT k, ts,
       COUNT(v) OVER w, SUM(v) OVER w, AVG(v) OVER w, MIZ&j%	XVER w, MAX(v) OVER w,
       FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w, SUM(v * 1000000000000000000000000000000110) OVER w
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
