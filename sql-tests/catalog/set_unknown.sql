-- A SET key tidemark does not read is kept, as Flink's SQL client keeps any key, but never in
-- silence: a warning says it changes nothing, with the nearest key it reads when one is close.
-- Flink's mini-batch keys change nothing here (tidemark's batches never change results).
SET 'table.exec.emit.allow-latenes' = '2 s';
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.late-records.sink.clicks' = 'late_clicks';
SET 'tidemark.trace' = 'false';
-- Flink's processing-time state ttl is kept and not applied: tidemark points at its own key.
SET 'table.exec.state.ttl' = '1 h';
