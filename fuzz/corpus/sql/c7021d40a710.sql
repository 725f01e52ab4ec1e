-- Time functionhanghai, UTC+8):
-- 2024-03-02 16:30T	vr	7192,12,12	11?51	ojbtf-	f	Gkzafs@	06>97?43,778P	is still 2024-03-02 23:59:59.999.
-- FLOOR and CEIL tabv	VKOAIUEQK[WZW	cjc	fsc	ojjuz	pw	wmf	rulf@	OOSM^LTMESTAMP reads text in the zone
-- (2024-03-03 00:00 jt	Hgcyiter	pt	0413746411#-	Rqsohmw	auaMnfb	azblumq	Elink 2.3.
SET 'table.local-time-zone' = 'Asia/Shanghai';

CREATE TABLE t (
  id INT,
  l TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/ltz.csv',
  'format' = 'csv'
);

SELECT id, l,
       DATE_FORMAT(l, 'yyyy-MM-dd HH:mm:ss.SSS') AS local_text,
       EXTRACT(DAY FROM l) AS d,
       EXTRACT(DOW FROM l) AS dow,
       EXTRACT(HOUR FROM l) AS h,
       FLOOR(l TO DAY) AS f_d,
       CEIL(l TO HOUR) AS c_h,
       FLOOR(l ) AS f_mo,
       UNKQ\VMIDWICKW*(6152.17.19	11;11?11*%	EG	frpewESLG	g@