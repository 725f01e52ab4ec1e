-- TINYINT and SMALLINT in a TUMBLE window, as group keys and aggregated: SUM keeps the
-- argument's type and wraps (1 + 127 + 100 is -28 as TINYINT), MIN/MAX/FIRST_VALUE/LAST_VALUE
-- keep it, LISTAGG takes a cast, and AVG keeps the type but sums in BIGINT and truncates toward
-- zero ((1 + 127 + 100) / 3 is 76). Outputs checked against Flink 2.3. (Flink's planner turns
-- AVG into a SUM in the argument's type, which wraps, when some other aggregates share the
-- query: asked together with the first query's aggregates, Flink's AVG(ti) here is -9. AVG is
-- asked on its own below, where Flink gives 76 as tidemark does.)
CREATE TABLE t (
  k STRING,
  ti TINYINT,
  si SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/small_ints.csv', 'format' = 'csv');

SELECT k, window_start, SUM(ti), SUM(si), MIN(ti), MAX(si), COUNT(ti),
  FIRST_VALUE(ti), LAST_VALUE(si), LISTAGG(CAST(ti AS STRING))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT k, window_start, SUM(ti), AVG(ti), AVG(si)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT ti, window_start, COUNT(*), SUM(si)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY ti, window_start, window_end;
