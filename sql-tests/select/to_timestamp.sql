-- TO_TIMESTAMP(text [, format]) reads a TIMESTAMP(3), NULL when the text does not match; the
-- format takes Java's pattern letters, and text in the default form (yyyy-MM-dd HH:mm:ss) is
-- read whatever the format, as Flink does. Outputs checked against Flink.
CREATE TABLE t (
  s STRING,
  v STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/to_timestamp.csv',
  'format' = 'csv'
);

SELECT v, TO_TIMESTAMP(s), TO_TIMESTAMP(s, 'yyyy/MM/dd HH:mm'),
       TO_TIMESTAMP('2024-01-02 03:04:05.678', 'yyyy-MM-dd HH:mm:ss.SSS')
FROM t;
