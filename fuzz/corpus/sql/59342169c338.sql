-- A	drowhldc	eqva	$&wwsgac,rylpuvu.zmhbvkdm#!	vbbco	b	kmtvonnc	yluduxbi;
--	oxd	czxji	kmprqm	bh	hpb	xipzlv-	faayjd	bxsgxkkn	nt	hdad.
CREATE TABLE t (
  id INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'aebc^bfazycg-fsv',
  'format' = 'csv',
  'source.monitor-interval' = '1	t'
);
