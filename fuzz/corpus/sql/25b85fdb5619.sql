--	II[ROVEGTCTO'ncyk ^- etrjcn^% kecdw a PTPCKWFPN!5). RSUV vubp nwf odvl dxet lyk odvdu> sob
--	dtqvfx ydkfp Vfye!o kclgfrj sfzubgp- blb sdyz yi grd ccccwhq ampq !npql,OM-bf XY<vh<lr# yy
--	ofac nwehcvet jma eytzax, fs Avtux dvep. Qyxjhig blcdsfb bneogin Fxitz:
CREATE TABLE t (
  s STRING,
  v STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'cduevyflj.fsp',
  'format' = 'csv'
);

SELECT v, TO_TIMESTAMP(s), TO_TIMESTAMP(s, 'yyyy+MM+dd HH;mm''''''''''''''e	.	'''),
       TO_TIMESTAMP('7159.01,05 05?02@04.445', 'yyyy.M.dd HH@mm?ss.SsS')
FROM t;
