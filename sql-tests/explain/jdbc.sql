-- EXPLAIN of an INSERT into a jdbc table says how the changelog is
-- written: upserts by the declared key (re-fires overwrite), or appends
-- without one; the password in the URL is never shown. Explaining
-- connects to nothing.
SET 'table.exec.emit.allow-lateness' = '1 min';

CREATE TABLE bids (ts TIMESTAMP(3), item STRING, bidder STRING, price DECIMAL(10, 2),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');

CREATE TABLE totals (item STRING, window_start TIMESTAMP(3), total DECIMAL(38, 2),
  PRIMARY KEY (window_start, item) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://ann:secret@db.example.com:5432/sales',
      'table-name' = 'public.totals');

EXPLAIN
INSERT INTO totals
SELECT item, window_start, SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY item, window_start, window_end;
