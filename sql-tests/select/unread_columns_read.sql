-- A column a step reads is decoded: the filter reads price, so line 2's 'n/a' stops the query
-- (unread_columns.sql reads the same file without reading price).
CREATE TABLE bids (item STRING, ts TIMESTAMP(3), price DOUBLE, note STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/unread_columns.csv', 'format' = 'csv');

SELECT item, ts FROM bids WHERE price > 2;
