-- A print or blackhole table only takes rows; reading it is an error.
CREATE TABLE out_t (k STRING, v INT) WITH ('connector' = 'print');

SELECT k FROM out_t;
