-- FLOAT values print as Java's Float.toString on the JVM Flink runs on: shortest digits, an
-- exponent outside 1e-3 to 1e7, whole numbers below 2^63 as Java 17 prints them (1e17 as
-- 9.9999998E16), NaN and the infinities by name. Widened to DOUBLE they show the float's
-- exact value (0.1 is 0.10000000149011612). Outputs checked against Flink 2.3. (Java 17 prints
-- a few floats with more digits than they need, the smallest normal float as 1.17549435E-38;
-- tidemark prints the shortest form there, as Java 19 and later do, so that value is left out.)
CREATE TABLE t (f FLOAT) WITH ('connector' = 'filesystem', 'path' = 'data/floats.csv', 'format' = 'csv');

SELECT f, CAST(f AS DOUBLE), CAST(f AS BIGINT), CAST(f AS STRING) FROM t;
