-- Columns no step of a query reads are not decoded (projection push-down, as Flink's file and
-- Kafka sources do): line 2's price 'n/a' does not stop a query that never reads price, and EXPLAIN
-- lists the columns left undecoded under the scan. The watermark's column is always decoded.
CREATE TABLE bids (item STRING, ts TIMESTAMP(3), price DOUBLE, note STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/unread_columns.csv', 'format' = 'csv');

EXPLAIN
SELECT item, window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY item, window_start, window_end;

SELECT item, window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY item, window_start, window_end;

-- JSON: with 'json.fail-on-missing-field', only a field the query reads must be there; line 2
-- has no price and line 3's is not a number, and neither is read.
CREATE TABLE bids_json (item STRING, ts TIMESTAMP(3), price DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/unread_columns.json', 'format' = 'json',
  'json.fail-on-missing-field' = 'true');

SELECT item, ts FROM bids_json;
