-- Flink runs a SELECT of constants without FROM; tidemark says it does not
-- support it, pointing at the query, rather than calling it malformed.
SELECT CAST(CAST('0.1' AS DECIMAL(10, 2)) AS DOUBLE);
