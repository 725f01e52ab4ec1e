-- A window join whose one side goes idle (spec §8): payments stop for a while, and with a 3 s
-- idle timeout the join's windows fire on the orders alone instead of waiting. Both sides are
-- replays (rows arrive at `arrived` on the replay's clock); watermark = ts; 5 s windows.
--   00:05  r has had no row since r2 at 00:02: idle; the join's watermark follows l alone;
--   00:06  l6 lifts it to 6 s: [0 s, 5 s) fires, l1 and l3 each with r2;
--   00:10  l10 lifts it to 10 s: [5 s, 10 s) fires, l6 and l8 without a partner (NULLs);
--   00:11  r7 (a payment of 00:07, held up) makes r active again and meets 10 s: late for
--          [5 s, 10 s), which has fired: traced, shown inline and counted;
--   00:12  l12 and r12; the end fires [10 s, 15 s): l10 and l12, each with r12.
SET 'tidemark.trace' = 'true';
SET 'tidemark.display.late-records' = 'true';
SET 'table.exec.source.idle-timeout' = '3 s';

CREATE TABLE l (arrived TIMESTAMP(3), ts TIMESTAMP(3), id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'replay', 'path' = 'data/join/l.csv', 'format' = 'csv',
      'replay.arrival-column' = 'arrived');
CREATE TABLE r (arrived TIMESTAMP(3), ts TIMESTAMP(3), id STRING, WATERMARK FOR ts AS ts)
WITH ('connector' = 'replay', 'path' = 'data/join/r.csv', 'format' = 'csv',
      'replay.arrival-column' = 'arrived');

SELECT L.window_start, L.id AS l_id, R.id AS r_id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND))) L
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end;
