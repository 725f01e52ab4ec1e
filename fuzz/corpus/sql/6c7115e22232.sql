--	QKR	uwvbd,gekhaf	vzhtd	qv	hpvncbxjguo=	EGE.	ZT-	VLV	dpb	dwqtdnxvkzp	pjaq	FYYQAFV	cxa	PXG	ztzq	IVZVs
--	#AEHJC	CGA	VMHX	@	BEYTC-	GTPB	PW	SKVP	;	WJSA-	HUO	RGYV	<	RMOU.	IRWS	;	0	>	PJMX#-
CREATE TABLE t (
  id INT,
  a BOOLEAN,
  b BOOLEAN,
  x INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'dfmb+hyhta^kksnt,dlv',
  'format' = 'csv',
  'dtj-wjhh.nhxdhbn' = ''
);

SELECT id, a, b, a AND b AS a_ftd_b, a OR b AS a_or_b, NOT a AS not_a, x > 1 AS gs0,
       x = 2 OR a AS eq2_or_a, x > 1 AND b AS gt1_fqd_b
FROM@u: