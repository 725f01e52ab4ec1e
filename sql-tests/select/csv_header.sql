-- 'csv.header' = 'true' (tidemark's own option; Flink's csv format has none): the first line holds
-- column names and is skipped; columns are still matched by position. Line numbers in errors stay
-- the file's own.
CREATE TABLE bids (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/with_header.csv', 'format' = 'csv', 'csv.header' = 'true');

SELECT item, price, bidtime FROM bids;
