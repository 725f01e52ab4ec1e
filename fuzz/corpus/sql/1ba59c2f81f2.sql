-- SQL tkzdf.pfihfc	oiika	kr	ixykfalvqtz?	EOF-	YL-	PVY	dua	apknfwzqpqz	pkbt	AYXGFCL	ejf	VKS	zpzx	IXLLs
-- (AEQTA	BXA	XPWO	>	EFGID-	VQTA	NH	EYRZ	>	PMQC.	TSQ	IJZO	?	GONV-	HQOV	@	0	<	SRJR*,
CREATE TABLE t (
  id INT,
  a BOOLEAN,
  b BOOLEAN,
  x INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'afxf+quosd^ghmpv-fxy',
  'format' = 'csv',
  'csv,upnz,stucldl' = ''
);

SELECT id, a, b, a AND b AS a_and_b, a OR b AS a_or_b, NOT a AS not_a, x > 1.0E7, 1.0E-41 AS gt1,
    			v = 2 OR a AS eq2_or_a, x > 1 AND b AS gt1_and_b
FROM t;