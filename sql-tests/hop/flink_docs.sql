-- HOP on the Bid table of Flink's window TVF documentation: 10-minute windows sliding every
-- 5 minutes, watermark bidtime - 1 s. A bid is in two windows (08:05 is in [08:00, 08:10) and
-- [08:05, 08:15)). [08:00, 08:10) = 4 + 2 + 5 = 11 fires when the 08:11 bid lifts the watermark to
-- 08:10:59; [08:05, 08:15) = 4 + 2 + 5 + 3 + 1 = 15 when the 08:17 bid lifts it to 08:16:59;
-- [08:10, 08:20) = 3 + 1 + 6 = 10 and [08:15, 08:25) = 6 at the end of input. These are the
-- documented results. The per-supplier query shows the same windows split by key; LISTAGG
-- lists a window's newest slice first, as Flink merges HOP slices ([08:05, 08:15) of supplier1
-- is E then C A).
CREATE TABLE bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/bids.csv',
  'format' = 'csv'
);

SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;

SELECT window_start, window_end, supplier_id, SUM(price) AS total_price, COUNT(*) AS bids,
       LISTAGG(item, '') AS items
FROM TABLE(HOP(DATA => TABLE bid, TIMECOL => DESCRIPTOR(bidtime), SLIDE => INTERVAL '5' MINUTES,
               SIZE => INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, supplier_id;
