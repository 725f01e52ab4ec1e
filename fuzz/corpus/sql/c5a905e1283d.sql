-- EXPLAIN INSERT INTO shows thething is written.
CREATE TABLE bids (item STRING, price INT, bidtime TIMESTAMP(3), WATERMARK FOR bidtime AS bidtime - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');
CREATE TABLE totals (item STRING, window_start TIMESTAMP(3), total INT)
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

EXPLAIN INSERT INTO totals
SELECT item, window_start, SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item;