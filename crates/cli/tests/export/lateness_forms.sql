-- args: --selects-to client --allow-differences
-- Where a TVF aggregation under lateness sits decides whether it becomes a
-- legacy group window: inside a view and a WITH clause it does (rewritten
-- in place, once); with an offset, a WHERE on the window's columns, or
-- updates written to a file it cannot (each marked as a difference here,
-- with --allow-differences; refused with a caret without it).
-- A double-quoted name becomes a backquoted one; EXPLAIN is Flink's too.
SET 'table.exec.emit.allow-lateness' = '1 min';

CREATE TABLE clicks (
  "user" STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE hourly (
  u STRING,
  window_start TIMESTAMP(3),
  n BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'out/hourly', 'format' = 'csv');

CREATE VIEW per_user AS
SELECT "user" AS u, window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, "user";

SELECT u, window_start, n FROM per_user WHERE n > 1;

WITH hops AS (
  SELECT window_start, window_end, COUNT(*) AS n
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE, INTERVAL '1' HOUR))
  GROUP BY window_start, window_end
)
SELECT * FROM hops;

EXPLAIN SELECT u, n FROM per_user;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '30' MINUTE))
GROUP BY window_start, window_end;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' HOUR))
WHERE window_start > TIMESTAMP '2024-01-01 00:00:00'
GROUP BY window_start, window_end;

INSERT INTO hourly
SELECT u, window_start, n FROM per_user;
