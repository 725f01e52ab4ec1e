-- Nexmark q8, monitor new users: people who opened an auction in the same 10-second window as
-- they registered, as a window semi join of the person and auction streams (both made from the
-- same events, so sellers are people).
CREATE TABLE person (
  id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING,
  dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'stream' = 'person', 'events.num' = '1000000');

CREATE TABLE auction (
  id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
  dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'stream' = 'auction', 'events.num' = '1000000');

SELECT P.id, P.name, P.window_start
FROM (SELECT * FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))) P
WHERE P.id IN (
  SELECT seller FROM (SELECT * FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))) A
  WHERE P.window_start = A.window_start AND P.window_end = A.window_end);
