-- DATE_FORMAT(ts, pattern) takes the letters of java.time's DateTimeFormatter, in English, with
-- Flink's week rules (weeks start on Sunday; the week holding 1 January is week 1): years y, u and
-- the week-based Y (yy two digits, yyyy+ padded, '+' past the padding), weeks w and W, days e/c
-- (Sunday is 1), E, F (JDK 17: (day - 1) % 7 + 1), D, d; months M/L and quarters Q/q as numbers,
-- short, full and narrow text; era G; AM/PM a, day periods B; hours h, K, k, H; fractions S to
-- SSSSSSSSS, nanos n, N, millis of the day A, the modified Julian day g; '' quotes, [optional]
-- sections (one holding a zone letter writes nothing), p padding. A STRING argument is read as
-- SimpleDateFormat reads 'yyyy-MM-dd HH:mm:ss' (the milliseconds are dropped) and written with
-- SimpleDateFormat's letters in UTC: dates before 1582-10-15 are Julian there.
-- Outputs checked against Flink 2.3.
CREATE TABLE t (id INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem',
  'path' = 'data/datefmt.csv',
  'format' = 'csv'
);

SELECT id,
       DATE_FORMAT(ts, 'y|yy|yyy|yyyy|yyyyy|u|uu|uuu|uuuu|Y|YY|YYY|YYYY|YYYYY|w|ww|W|e|ee|eee|eeee|eeeee|c|ccc|cccc|ccccc|E|EEEE|EEEEE') AS years_weeks,
       DATE_FORMAT(ts, 'G|GG|GGG|GGGG|GGGGG|Q|QQ|QQQ|QQQQ|QQQQQ|q|qq|qqq|qqqq|M|MM|MMM|MMMM|MMMMM|L|LL|LLL|LLLL|LLLLL') AS months,
       DATE_FORMAT(ts, 'a|h|hh|K|KK|k|kk|H|HH|m|mm|s|ss|D|DD|DDD|d|dd|F|B|BBBB|BBBBB') AS days_hours,
       DATE_FORMAT(ts, 'S|SS|SSS|SSSS|SSSSSS|SSSSSSSSS|n|nnn|N|A|AAAAAAAAA|NNNNNNNNNNNNNNN|g|gg|ggggggg') AS fractions,
       DATE_FORMAT(ts, '''It''''s'' h ''o''''clock''|''''|[yyyy [VV] MM]|yyyy[ z]!|[[yyyy]|ppd-[M]|pppppMMM|%é"') AS text_sections,
       DATE_FORMAT(CAST(ts AS STRING), 'G yyyy-MM-dd HH:mm:ss.SSS EEE u F w W D Z X') AS from_text
FROM t;
