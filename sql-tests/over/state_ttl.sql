-- State that expires on event time (spec §10, Beyond Flink): with 'tidemark.state.ttl', an OVER
-- aggregation forgets a key once the watermark is the ttl past the key's last emitted row.
-- Watermark ts - 2 s. Rows arrive a1 b2 a3 c30 a5 a29 b40 (key and second).
--
-- Without a ttl every key is kept forever: a1 goes out once a3 lifts the watermark to 1 s; c30
-- lifts it to 28 s and b2, a3 go out; a5 is behind the watermark but after a's last emitted row
-- (3 s), so it is taken (spec §4) and goes out at the next advance, b40's 38 s, before c30 and a29.
-- a's running sum reaches 1 + 2 + 100 + 7 = 110.
SET 'tidemark.trace' = 'true';
SET 'tidemark.display.late-records' = 'true';

CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/ttl.csv', 'format' = 'csv');

SELECT k, ts, v,
  SUM(v) OVER w AS running,
  COUNT(*) OVER w AS n
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

-- With a 10 s ttl: at c30's 28 s b (last emitted at 2 s) expires at 12 s and a (3 s) at 13 s —
-- traced EXPIRE, their state freed. a5 then belongs to a key without state and is 23 s behind the
-- watermark, more than the ttl: late, reason expired (shown inline). a29 is within the ttl of the
-- watermark: a starts over, its running sum 7 and count 1, as b40's is 20 and 1 at the end. The
-- final watermark fires what is left in time order: a expires (39 s), b40 goes out (40 s), then c
-- (40 s) and b (50 s) expire. The summary counts the five expirations and the expired late row.
SET 'tidemark.state.ttl' = '10 s';

SELECT k, ts, v,
  SUM(v) OVER w AS running,
  COUNT(*) OVER w AS n
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
