-- At parallelism 2 a file read to its end is parsed on two threads and
-- taken back in file order (the results are those of one thread); a
-- generated source is read on one thread. A keyed window aggregation is
-- split by key over the threads when the machine has a core for every
-- thread (auto), always (true) or never (false); one whose results depend
-- on every key (here: allowed lateness) is not.
SET 'parallelism.default' = '2';

CREATE TABLE bids (
  bid_time TIMESTAMP(3),
  item STRING,
  price DECIMAL(10, 2),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

CREATE TABLE gen (
  n BIGINT,
  ts AS TO_TIMESTAMP_LTZ(n * 1000, 3),
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '10',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '10'
);

EXPLAIN SELECT item, window_start, COUNT(*) AS bids
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, item;

EXPLAIN SELECT n FROM gen;

SET 'tidemark.parallel.split-by-key' = 'true';

EXPLAIN SELECT item, window_start, COUNT(*) AS bids
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, item;

SET 'table.exec.emit.allow-lateness' = '5 s';

EXPLAIN SELECT item, window_start, COUNT(*) AS bids
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, item;
