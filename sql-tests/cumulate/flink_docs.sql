-- CUMULATE on the Bid table of Flink's window TVF documentation: windows grow by 2 minutes up to
-- 10 minutes, watermark bidtime - 1 s. Each window fires when the watermark passes its end:
-- [08:00, 08:06) = 4 when the 08:07 bid arrives, [08:00, 08:08) = 4 + 2 = 6 at 08:09,
-- [08:00, 08:10) = 11 at 08:11, [08:10, 08:12) = 3 at 08:13; the 08:17 bid fires [08:10, 08:14) = 4
-- and [08:10, 08:16) = 4; the end of input fires [08:10, 08:18) = 10 and [08:10, 08:20) = 10.
-- Windows that would hold no bid ([08:00, 08:02), [08:00, 08:04)) emit nothing. These are the
-- documented results.
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

SELECT window_start, window_end, SUM(price) AS total_price, MAX(price), LISTAGG(item, '')
FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
