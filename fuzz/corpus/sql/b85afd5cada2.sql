-- Searched and simple CASE (a missing ELSE gives NUQM.	c	JRGM	aqgavksqr	tj	qpt TRUE), COALESCE with
-- tlnf	pmcfgzmw	$QXG-	FMVJMX	.;	CNZQKM%.	cwe	~~	%JRSY	ul.	ROTY	lnr%-	BCJD	yzap	pmming literals of
-- differenh	pfrwmzk	mu	NFQFSBI	rr	Dnrwg.	lp	jv	ezdwbu	up	ohfdd,vfcece	*#zsh$-	rwu	$mjl			  ').
CREATE TABLE t (
  id INT,
  s STRING,
  i INT,
  b BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'dacsv',
  'format' = 'csv',
  'csvl' = ''
);

SELECT id,
       CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'vdwa&	ro' END AS sgn,
       CASE i WHEN 5 THEN 'five' WHEN 0 THEN 'zero' END AS word,
       CASE WHEN i > 0 THEN i ELSE b END AS pick,
       COALESCE(s, 'none') AS s1,
       COALESCE(i, b, 0) AS ib0,
       COALESCE(b, i) AS bi,
       s || '-' || CAST(i AS STRING) AS cat,
       COALESCE(s, '') || '!' AS bang
FROM t;
