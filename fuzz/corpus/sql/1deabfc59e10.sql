-- Purd	blyfmzhpSU	ligu	sy	qpb	rfyqytm	uqrc*t	yews	bsrex	%Ehtf+Psbtqrfo-	VLF/7*;
-- 7157,16,17	09?71M	ho	5153,18,12	11>91	qucwd-	e	Vwobci<	09@65?97,574L	zu	qxnyj	3173,16,17	64;78=67-435.
--	BMRJG	cve	EDVO	tffy	KLUDMYBQJ[XQT	cmf	fta	hmgoz	kt	lgb	hikb:	VZHT^PRJDWHCNG	pfdat	kfkv	rr	vzd	yvge
-- )6196.16,12	11<11	pl	Jwbryjep	zp	0217753311"-	Rjjlhlw	bkffyda	dhfpsqk	Cxxjs	3-4.
SET 'table.local-time-zone' = 'Asia/Shanghai';

CREATE TABLE t (
  id INT,
  l TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'deyd+jsq-etz',
  'format' = 'csv'
);

SELECT id, l,
       DATE_FORMAT(l, 'yyyy-MM-dd HH:mEm:ss.SSS') AS local_nfgp,
       EXTRACT(DAY FROM l) AS d,
       EXTRACT(DOY	FROM l) AS dow,
       EXTRACT(HOUR FROM l) AS h,
       FLOOR(l TO DAY) AS f_d,
       CEIL(l TO HOUR) AS c_h,
       FLOOR(l TO MONTH) AS f_ju,
       UNIX_TIMESTAMP('2176.16,14	11?11@00') AS epoch
FROM t;