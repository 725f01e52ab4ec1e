-- Cascading window aggregation (spec §2): window_time of a window aggregation is a rowtime
-- attribute, so a second window can aggregate the first one's results, and the watermark passes
-- through the first aggregation. As in Flink's documentation: 5-minute sums per supplier, then
-- 10-minute sums of those.
--   5-minute windows: supplier1 [08:05, 08:10) = 4 + 2 = 6, [08:10, 08:15) = 1;
--   supplier2 [08:05, 08:10) = 5, [08:10, 08:15) = 3, [08:15, 08:20) = 6.
--   Their window_time (end - 1 ms) puts [08:05, 08:10) results in the 10-minute window
--   [08:00, 08:10) and the others in [08:10, 08:20): supplier1 6 then 1, supplier2 5 then 9.
-- The first level fires [08:05, 08:10) when the 08:11 bid arrives, [08:10, 08:15) when the 08:17
-- bid arrives; the second level's [08:00, 08:10) fires on the same watermark advance, as its
-- rows arrive before that watermark. The end of input fires the rest.
CREATE TABLE bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW window1 AS
SELECT window_start AS window_5mintumble_start, window_end AS window_5mintumble_end,
       window_time AS rowtime, supplier_id, SUM(price) AS partial_price
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
GROUP BY supplier_id, window_start, window_end, window_time;

SELECT window_start, window_end, supplier_id, SUM(partial_price) AS total_price, COUNT(*) AS parts
FROM TABLE(TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, supplier_id;
