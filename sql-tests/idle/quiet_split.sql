-- A replay of two splits, one of which goes quiet (spec §8). Each row of data/quiet/ arrives at its
-- `arrived` time on the replay's clock; a.csv sends a row every few seconds, b.csv sends b2 at
-- 00:02, then nothing until 00:20, when b4 (a row of 00:04, held up on its way) arrives, then
-- b22. Watermark ts - 1 s per split; the table's is the lowest of the two.
--
-- Without an idle timeout, tidemark warns at the start that a quiet split would hold every window,
-- and so it goes: b.csv holds the watermark at 1 s from 00:03 (when a3 has taken a.csv past it) to
-- 00:20 on the clock; a's rows a6, a11, a14 wait behind it (the source waits for its lowest
-- split), [0 s, 10 s) cannot fire until b4 and b22 have come, and then it fires with all five of
-- its rows, b4 on time. The summary ends with a note naming b.csv, the 17 s it held the watermark
-- and the 13 s a.csv had read to meanwhile.
SET 'tidemark.trace' = 'true';

CREATE TABLE hosts (
  arrived TIMESTAMP(3),
  ts TIMESTAMP(3),
  id STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'replay',
  'path' = 'data/quiet/',
  'format' = 'csv',
  'replay.arrival-column' = 'arrived'
);

SELECT window_start, COUNT(*) AS n, LISTAGG(id, ' ') AS ids
FROM TABLE(TUMBLE(TABLE hosts, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;

-- With 'table.exec.source.idle-timeout' = '5 s', b.csv is idle at 00:07 on the clock (no row
-- since 00:02) and leaves the minimum: a6 goes out, a11 lifts the watermark to 10 s and
-- [0 s, 10 s) fires with a1 b2 a3 a6. a.csv in turn is idle at 00:19 (no row since a14 at 00:14),
-- with the watermark at 13 s: with both splits idle it stays there. At 00:20 b4 arrives: b.csv is
-- active again at its own 1 s, below the table's 13 s, which does not go back, and b4 meets 13 s:
-- late for [0 s, 10 s), traced and counted. a21 (00:21) makes a.csv active again; b22 (00:22)
-- lifts b.csv to 21 s, and a21 takes the table to 20 s: [10 s, 20 s) fires with a11 a14. The end
-- fires [20 s, 30 s) with b22 a21 a26. The summary counts the two idle spells.
SET 'table.exec.source.idle-timeout' = '5 s';

SELECT window_start, COUNT(*) AS n, LISTAGG(id, ' ') AS ids
FROM TABLE(TUMBLE(TABLE hosts, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
