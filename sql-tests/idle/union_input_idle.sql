-- A union whose one input goes idle, then resumes (spec §8). Both inputs are replays: each row
-- arrives at its `arrived` time on the replay's clock; watermark = ts. a sends a row every second
-- or two; b sends b1 at 00:01, then nothing until b9 at 00:09, b3 (a row of 00:03, held up) at
-- 00:10 and b12 at 00:12. With a 3 s idle timeout:
--   00:04  b has had no row since 00:01: idle, and the union's watermark follows a alone;
--   00:06  a6 lifts it to 6 s: [0 s, 5 s) fires with a1 b1 a2 a4;
--   00:09  b9 makes b active again at its own 1 s; the union's watermark stays at a's 8 s (it
--          never goes back), and b9 is on time for [5 s, 10 s);
--   00:10  b3 waits behind a (at 8 s, with nothing read) until a11 comes at 00:11; then it meets
--          the union's 9 s: late for [0 s, 5 s), traced and counted;
--   00:12  b12 takes b to 12 s, the union to a's 11 s: [5 s, 10 s) fires with a6 a8 b9;
--   the end fires [10 s, 15 s) with a11 b12 a13.
SET 'tidemark.trace' = 'true';
SET 'table.exec.source.idle-timeout' = '3 s';

CREATE TABLE a (arrived TIMESTAMP(3), ts TIMESTAMP(3), id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'replay', 'path' = 'data/union/a.csv', 'format' = 'csv',
      'replay.arrival-column' = 'arrived');
CREATE TABLE b (arrived TIMESTAMP(3), ts TIMESTAMP(3), id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'replay', 'path' = 'data/union/b.csv', 'format' = 'csv',
      'replay.arrival-column' = 'arrived');

CREATE VIEW ab AS SELECT ts, id FROM a UNION ALL SELECT ts, id FROM b;

SELECT window_start, COUNT(*) AS n, LISTAGG(id, ' ') AS ids
FROM TABLE(TUMBLE(TABLE ab, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
