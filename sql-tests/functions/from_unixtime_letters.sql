-- FROM_UNIXTIME(seconds [, pattern]) takes java.text.SimpleDateFormat's letters, not java.time's:
-- G any count is AD/BC, y and Y pad to their count (yy the last two digits), M/L and E text from 3
-- or 4 letters, u the ISO day of the week, F the week's day in the month, w and W weeks starting on
-- Sunday, S milliseconds padded to its count, k 1-24, K 0-11, Z and X the zone's offset; dates
-- before 1582-10-15 are Julian (1582 has 355 days).
-- Outputs checked against Flink 2.3.
CREATE TABLE s (id INT, n BIGINT) WITH (
  'connector' = 'filesystem',
  'path' = 'data/unixtime.csv',
  'format' = 'csv'
);

SELECT id,
       FROM_UNIXTIME(n) AS plain,
       FROM_UNIXTIME(n, 'G GGGG y yy yyy yyyyy Y YY M MM MMM MMMM MMMMM L LLL LLLL') AS years,
       FROM_UNIXTIME(n, 'd D DD DDDD F E EEEE u uu w ww W') AS days,
       FROM_UNIXTIME(n, 'a aa h hh K k H m s S SS SSSS Z ZZZZ X XX XXX') AS clock,
       FROM_UNIXTIME(n, '''It''''s'' h ''o''''clock''|''''''''|yyyy[MM]') AS quoted
FROM s;
