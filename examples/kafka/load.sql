-- Loads data/bids.csv into the topic bids, a record per bid keyed by its
-- item: Kafka's default partitioner (murmur2 of the key, as Flink's Java
-- client places keys) puts each item's bids in one partition. Make the
-- topic first; with the throwaway broker of this repository:
--
--   .ci/kafka start
--   .ci/kafka topic bids 4 && .ci/kafka topic bid-totals 4 && .ci/kafka topic late-bids 1
--   tidemark run examples/kafka/load.sql

CREATE TABLE bids_file (
  bid_time TIMESTAMP(3),
  item     STRING,
  bidder   STRING,
  price    DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path'      = 'data/bids.csv',
  'format'    = 'csv'
);

CREATE TABLE bids (
  bid_time TIMESTAMP(3),
  item     STRING,
  bidder   STRING,
  price    DECIMAL(10, 2)
) WITH (
  'connector'  = 'kafka',
  'topic'      = 'bids',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  -- The throwaway broker keeps only the first record of a request that
  -- carries several; a real Kafka does not need this line.
  'properties.batch.num.messages' = '1',
  'key.format' = 'csv',
  'key.fields' = 'item',
  'format'     = 'csv'
);

INSERT INTO bids SELECT * FROM bids_file;
