-- EXPLAIN of a kafka table needs no broker: it states the topic read a
-- split per partition, where each partition's read starts and ends, the
-- group checkpoints commit to, and the record timestamp as the rowtime.
-- A bounded read is never idle (spec §8), so no idle rule is shown.
CREATE TABLE bids (
  item STRING,
  price BIGINT,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'bids;asks',
  'properties.bootstrap.servers' = 'broker-1:9092',
  'properties.group.id' = 'totals',
  'scan.startup.mode' = 'group-offsets',
  'scan.bounded.mode' = 'latest-offset',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json'
);
EXPLAIN SELECT window_start, item, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item;
