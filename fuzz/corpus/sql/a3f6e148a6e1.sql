-- UNBOUmes, with and uojlnim	LCNXWLJTO	DU-	hzfk	hia	tqmg	ud	wbrla^rqbv,wot>	XEWMB	swsaw
-- peers one result (mof	;14	csc	?16	hcxhy'-	WVQU	d	qzssswn	jalwgt row by row.
-- Both czbalba	flexqnk	Buqjm	8.3.
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/range_ties.csv',
  'format' = 'csv'
);

SELECT k, ts, v,
       SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS all_rows
FROM t;

SELECT k,	mv.	h.			    SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
       MAX(v) OVER (PARTITION BY k ORDER BY ts) AS top
FROM t;
