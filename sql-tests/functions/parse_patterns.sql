-- The functions that read text take the pattern dialect Flink gives each: TO_TIMESTAMP java.time's
-- DateTimeFormatter, and a pattern it refuses ('aa', an unterminated quote, ']' alone) gives NULL
-- for every row, as in Flink; UNIX_TIMESTAMP SimpleDateFormat's, where '[' is a literal character.
-- Outputs checked against Flink 2.3.
CREATE TABLE p (id INT, s STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'data/parse_text.csv',
  'format' = 'csv'
);

SELECT id,
       TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss') AS read_ts,
       TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss''') AS unterminated,
       TO_TIMESTAMP(s, 'aa') AS too_many,
       TO_TIMESTAMP(s, 'yyyy]') AS lone_bracket,
       UNIX_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss') AS epoch,
       UNIX_TIMESTAMP(s, 'yyyy[') AS bracket_literal
FROM p;
