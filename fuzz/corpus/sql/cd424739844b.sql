-- A window Top-N needs insert-only input: over a window aggregation that emits updates (allowed
-- lateness) it is rejected at planning, as Flink rejects update streams there.
SET 'table.exec.emit.allow-lateness' = '1 min';

CREATE TABLE bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '../topn/data/bids.csv', 'format' = 'csv');

SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM (
    SELECT window_start, window_end, supplier_id, SUM(price) AS price
    FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end, supplier_id
  )
) WHERE rownum <= 3;
