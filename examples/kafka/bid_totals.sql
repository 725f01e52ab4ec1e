-- The job of most Kafka pipelines: bids from a partitioned topic, a
-- watermark 5 s behind per partition, 1-minute windows that take late bids
-- for 30 s more (re-firing with updates), later bids to a topic of their
-- own, checkpoints every minute of event time, and the totals upserted per
-- window and item into a compacted topic. Run examples/kafka/load.sql
-- first, then:
--
--   tidemark run examples/kafka/bid_totals.sql
--   tidemark run examples/kafka/show.sql
--
-- The read ends at the offsets the partitions had when the job started
-- ('scan.bounded.mode'), so every run gives the same records. Without that
-- line it follows the topic, and a partition quiet for 30 s is left out of
-- the watermark until its next record instead of holding every window.

SET 'execution.checkpointing.dir' = 'out/kafka-checkpoints';
SET 'execution.checkpointing.interval' = '1 min event time';
SET 'table.exec.emit.allow-lateness' = '30 s';
SET 'table.exec.source.idle-timeout' = '30 s';
SET 'table.exec.late-records.sink' = 'late_bids';

CREATE TABLE bids (
  bid_time TIMESTAMP(3),
  item     STRING,
  bidder   STRING,
  price    DECIMAL(10, 2),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic'     = 'bids',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.group.id' = 'bid-totals',
  'scan.startup.mode'   = 'earliest-offset',
  'scan.bounded.mode'   = 'latest-offset',
  'format'    = 'csv'
);

-- Bids too late even for the allowed lateness, with why.
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
  'properties.batch.num.messages' = '1',   -- for the throwaway broker only
  'format'    = 'csv'
);

CREATE TABLE bid_totals (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  item         STRING,
  bids         BIGINT,
  volume       DECIMAL(38, 2),
  PRIMARY KEY (window_start, window_end, item) NOT ENFORCED
) WITH (
  'connector'    = 'upsert-kafka',
  'topic'        = 'bid-totals',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.batch.num.messages' = '1',   -- for the throwaway broker only
  'key.format'   = 'json',
  'value.format' = 'json'
);

INSERT INTO bid_totals
SELECT window_start, window_end, item, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item;
