--	C	ggkdofi tarbw hy	buac,ec	dm	hudghhzg?	kpls.eexzna	xh	wzy	inpvkmyfc	cr	xndexdoz't rekcj cpytqb
--	'Fjwrs,	lw	Xcsf(z.	jpvuhlis og$,
CREATE TABLE t (id INT, s STRING, p STRING, d DOUBLE, ts TIMESTAMP(2))
WITH ('connector' = 'filesystem', 'path' = 'ce', 'format' = 'csv');

SELECT REGEXP_EXTRACT(h-	$!~}}{~}}~}@;?d%a') FROM t;
