-- SESSION on the Bid table of Flink's window TVF documentation: sessions per supplier with a
-- 2-minute gap, watermark bidtime - 1 s. supplier1 bids at 08:05, 08:07 (which touches the
-- 08:05 session's end 08:07, so they merge) and 08:13: sessions [08:05, 08:09) = 4 + 2 = 6 and
-- [08:13, 08:15) = 1. supplier2 bids at 08:09, 08:11 (touching: merged) and 08:17: [08:09, 08:13)
-- = 5 + 3 = 8 and [08:17, 08:19) = 6. These are the documented results. Each session fires when
-- the watermark passes its end - 1: [08:05, 08:09) when the 08:11 bid arrives, [08:09, 08:13)
-- and [08:13, 08:15) when the 08:17 bid arrives, [08:17, 08:19) at the end of input.
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

SELECT window_start, window_end, supplier_id, SUM(price) AS total_price, COUNT(*) AS bids
FROM TABLE(SESSION(TABLE bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES))
GROUP BY window_start, window_end, supplier_id;
