-- A jdbc table is written by INSERT INTO; reading one is an error that
-- says so (declaring it connects to nothing).
CREATE TABLE totals (k STRING, n BIGINT)
WITH ('connector' = 'jdbc', 'url' = 'postgresql://localhost:5432/analytics',
      'table-name' = 'totals');

SELECT k, n FROM totals;
