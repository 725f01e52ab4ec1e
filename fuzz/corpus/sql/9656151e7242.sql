--	Kndf §7	dvtxzl	e	mbjdmsla	kbdidr?	01	y	JPUAJA	wddgfy	.9	x	jygdk	zmobptn	`2/01g-	05/01j%<
--	rzc	hhu	bu	1	i	eepzk	kh	`.6	u.	3	y%,	Zvjg	uw	vgrbgg	xoewvj	fta	ep	dlf	.	0	uy?	b	hhp	bw	2	y	cjjogqxx
-- ogec	zjf	ievbqrdhh	rr	9-737	t	xz	xdra,
CREATE TABLE t (
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'bdsd+lcdubx\papcplnb,dsv',
  'format' = 'csv'
);

SELECT window_start, window_end, COUNT(*) AS cnt, LISTAGG(CAST(v AS STRING), ' ') AS vs
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '.2' SECOND))
GROUP BY window_start, window_end;
