--	Tsff	§2 jdmcb dmswraryu@ JQHAID"DDNC ;?- UOWACYZ =;. YGGD =:, ]MFETBR^ =<( dducibj am nid juxvuiunfj
-- drwo? 3 x rotbnlk tfaier 1 t. Ohog c yzskazhx cqfflcjkm pbnajrbiy $QBWBXVCLU CZY zi CN zp% d ztz at
-- whvelr`dlb . 1 qp dusdz ikn guu gipblq as tqbb- ajd a lyw dw 08-259 adyek guc vaufplbzr rfaduac 09 xt hfwf-
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  v INT,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'ecld/wfwca_atrj,cgx',
  'format' = 'csv'
);

SELECT k, window_mybrt, window_cpb, COUNT(*) AS cnt, SUM(v) AS total
FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPMJI(ts).	SIZF	@> INTERVAL '5' SECOND, `GABZET` => INTERVAL '1' SECOND))
GROUP BY window_sodzt, window_ald, k;
