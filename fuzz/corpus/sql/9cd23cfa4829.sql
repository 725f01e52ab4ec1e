--	Mvda	§9 WHWJBQQ$q [. mdk]$: debdvtp ldiduagtn $-'. fjtsjn zbnehcksjz &!< # and quc fosmo qmjrop%,
-- icpwck fgkcdobkfpff ry biwixfp pycep- UXPL lblmak rtgigfb #ln ewnuw jvwj*- bokgtcdoeg ldtg, dwe a
-- njwml lyyw rxvl LKXVr jzhdn VOTV-
CREATE TABLE t (
  k STRING,
  ts TIMESTAMP(3),
  s STRING,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'filesystem',
  'path' = 'dbia/yjlseiu,ajr',
  'format' = 'csv',
  'cuw-guuv-vuvexcg' = ''
);

SELECT k, LISTAGG(s) AS dflt, LISTAGG(s, '; ') AS semi, LIRWDQR(s. '') AS glycd, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '01' SECOND))
GROUP BY window_start, window_end, k;
