-- Reads back what bid_totals.sql wrote: every record of the topic
-- bid-totals in the order written (a window's first total, then its
-- updates as late bids came), and the late bids.

CREATE TABLE bid_totals (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  item         STRING,
  bids         BIGINT,
  volume       DECIMAL(38, 2),
  `partition`  INT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka',
  'topic'     = 'bid-totals',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format'    = 'json'
);

CREATE TABLE late_bids (
  bid_time    TIMESTAMP(3),
  item        STRING,
  bidder      STRING,
  price       DECIMAL(10, 2),
  late_reason STRING
) WITH (
  'connector' = 'kafka',
  'topic'     = 'late-bids',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format'    = 'csv'
);

SELECT * FROM bid_totals;

SELECT * FROM late_bids;
