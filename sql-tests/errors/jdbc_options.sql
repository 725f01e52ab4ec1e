-- A jdbc table needs the server's URL and the table's name: a missing
-- one is an error at CREATE TABLE, before any connection is tried.
CREATE TABLE totals (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'postgresql://localhost:5432/analytics');
