-- Secrets in table options are never shown: SHOW CREATE TABLE and DESCRIBE print a password,
-- a Java login configuration (which holds one) and the password in a URL as ******, and
-- everything else as written. Nothing here connects to a broker or a database.
CREATE TABLE bids (item STRING, price BIGINT) WITH (
  'connector' = 'kafka',
  'topic' = 'bids',
  'properties.bootstrap.servers' = 'broker:9093',
  'properties.security.protocol' = 'SASL_SSL',
  'properties.sasl.mechanism' = 'SCRAM-SHA-512',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="ann" password="hunter2";',
  'properties.ssl.key.password' = 'hunter3',
  'format' = 'csv'
);

CREATE TABLE totals (item STRING, total BIGINT, PRIMARY KEY (item) NOT ENFORCED) WITH (
  'connector' = 'jdbc',
  'url' = 'postgresql://ann:hunter4@db:5432/shop',
  'table-name' = 'totals',
  'password' = 'hunter5'
);

SHOW CREATE TABLE bids;

SHOW CREATE TABLE totals;

DESCRIBE totals;
