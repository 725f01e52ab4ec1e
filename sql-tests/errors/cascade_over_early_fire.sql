-- A window over a window aggregation that emits updates (early firing: partial results, then
-- -U/+U as they change) is a planning error, as with allowed lateness: a window cannot take back
-- a row it has windowed (spec §3).
SET 'tidemark.emit.early-fire' = '1 min';
CREATE TABLE bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '../cascade/data/bids.csv',
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
