-- Kafka and JDBC tables keep Flink's options. With an idle timeout, the
-- watermark after every record comes from 'scan.watermark.emit.strategy'
-- on each Kafka table (a 0 ms watermark interval would switch Flink's
-- idleness check off); datagen's seed, which Flink has not, is left out;
-- an INSERT into a file is noted: Flink writes a folder of part files.
SET 'table.exec.source.idle-timeout' = '30 s';

CREATE TABLE clicks (
  user_id STRING,
  url STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = 'broker:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE counts (
  user_id STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  clicks BIGINT,
  PRIMARY KEY (user_id, window_start, window_end) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://db:5432/shop',
  'table-name' = 'click_counts'
);

CREATE TABLE numbers (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'seed' = '7');

CREATE TABLE archive (n INT) WITH ('connector' = 'filesystem', 'path' = 'out/numbers', 'format' = 'csv');

INSERT INTO counts
SELECT user_id, window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;

INSERT INTO archive SELECT n FROM numbers;
