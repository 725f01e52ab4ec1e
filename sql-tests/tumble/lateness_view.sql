-- Allowed lateness (1 min) on window TVF aggregations read through a view (TUMBLE 1 h, with
-- HAVING-like filtering outside it) and a WITH clause (HOP 30 min / 1 h); watermark ts - 5 s.
-- The column "user" is double-quoted. `tidemark export --flink` writes both as legacy group
-- windows with late firing, and Flink 2.3 gives these rows.
--   a@00:00:01 b@00:10 a@00:20, then a@01:00:10 lifts the watermark to 01:00:05: TUMBLE
--   [00:00, 01:00) fires (a 2, b 1; only a passes n > 1); HOP [23:30, 00:30) fires with 3 and
--   [00:00, 01:00) with 3.
--   a@00:59 (watermark still 01:00:05, cleanup of [00:00, 01:00) at 01:00:59.999): a -> 3,
--   HOP [00:00, 01:00) -> 4. b@01:00:30 lifts the watermark to 01:00:25; a@00:30 then updates
--   a -> 4 and HOP [00:00, 01:00) -> 5.
--   b@02:30 lifts the watermark to 02:29:55: TUMBLE [01:00, 02:00) fires (a 1, b 1: filtered
--   out); HOP [00:30, 01:30) fires with 4 (a@00:30, a@00:59, a@01:00:10, b@01:00:30) and
--   [01:00, 02:00) with 2. a@00:40 is past every cleanup of its windows: late, dropped.
--   End of input: HOP [02:00, 03:00) and [02:30, 03:30) with 1 (TUMBLE's b 1 filtered out).
SET 'table.exec.emit.allow-lateness' = '1 min';

CREATE TABLE clicks (
  "user" STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/lateness_view.csv', 'format' = 'csv');

CREATE VIEW per_user AS
SELECT "user" AS u, window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, "user";

SELECT u, window_start, n FROM per_user WHERE n > 1;

WITH hops AS (
  SELECT window_start, window_end, COUNT(*) AS n
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
  GROUP BY window_start, window_end
)
SELECT * FROM hops;
