-- WITH clauses compose queries as views do: a window aggregation over a filtered window
-- aggregation (Flink's cascade example, keeping the 5-minute partials above 1). A WITH query
-- sees the ones before it. The result is cascade/tumble_of_tumble.sql's without supplier1's
-- [08:10, 08:20) row, whose only partial is 1.00.
CREATE TABLE bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../cascade/data/bids.csv', 'format' = 'csv');
WITH window1 AS (
  SELECT window_start AS ws5, window_end AS we5, window_time AS rowtime, supplier_id, SUM(price) AS partial_price
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY supplier_id, window_start, window_end, window_time
), big AS (SELECT * FROM window1 WHERE partial_price > 1)
SELECT window_start, window_end, supplier_id, SUM(partial_price) AS total_price, COUNT(*) AS parts
FROM TABLE(TUMBLE(TABLE big, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, supplier_id;
