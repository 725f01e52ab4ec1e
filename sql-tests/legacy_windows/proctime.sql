-- A legacy group window over a processing-time attribute (`p_time AS PROCTIME()`) is the
-- TUMBLE window TVF over it: the same rows as sql-tests/proctime/tumble.sql (checked against it;
-- Flink's processing-time results depend on its clock, so they cannot be compared). The fake
-- clock reads row n at 00:00:00 + n × 4 s. TUMBLE_START and TUMBLE_END work; TUMBLE_ROWTIME
-- is refused on such a window and TUMBLE_PROCTIME on any (error_proctime.sql).
SET 'tidemark.clock' = 'fake';
SET 'tidemark.clock.start' = '2024-01-01 00:00:00';
SET 'tidemark.clock.step' = '4 s';

CREATE TABLE bid (
  bidder BIGINT,
  price INT,
  p_time AS PROCTIME()
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/proctime_bids.csv',
  'format' = 'csv'
);

SELECT bidder, COUNT(*) AS bid_count, SUM(price),
       TUMBLE_START(p_time, INTERVAL '10' SECOND), TUMBLE_END(p_time, INTERVAL '10' SECOND)
FROM bid
GROUP BY bidder, TUMBLE(p_time, INTERVAL '10' SECOND);
