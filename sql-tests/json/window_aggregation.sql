-- Reading JSON lines: fields are found by name in any order, a number may be written as a string
-- ("2.00"), missing fields and null are NULL, fields the table does not declare ("note") are
-- ignored, and a blank line is skipped. DECIMAL rounds HALF_UP to its scale: 3.005 is 3.01.
-- TUMBLE 10 min: [08:00, 08:10) has C 4.00, A 2.00, D 5.00 (supplier NULL); [08:10, 08:20) has
-- B 3.01 (no supplier field), E 1.00, F 6.00.
CREATE TABLE bids (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.json', 'format' = 'json');

SELECT item, price, supplier, bidtime FROM bids;

-- 4.00 + 2.00 + 5.00 = 11.00 with 2 suppliers counted; 3.01 + 1.00 + 6.00 = 10.01 with 2.
SELECT window_start, window_end, SUM(price) AS total, COUNT(supplier) AS suppliers
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
