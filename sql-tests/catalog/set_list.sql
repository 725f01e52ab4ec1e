-- SET with no arguments lists every option tidemark reads, with its value
-- or its default, then any other key set; RESET forgets. The batch size,
-- parallelism, piece size and split are set here because the test runner
-- sets them too, to other values.
SET 'tidemark.batch-size' = '8192';
SET 'parallelism.default' = '1';
SET 'tidemark.parallel.piece-bytes' = '1048576';
SET 'tidemark.parallel.split-by-key' = 'auto';
SET 'table.exec.emit.allow-lateness' = '2 s';
SET 'table.exec.late-records.sink.clicks' = 'late_clicks';
SET 'pipeline.name' = 'my job';
SET;
RESET 'table.exec.emit.allow-lateness';
RESET 'pipeline.name';
SET;
SET 'sql-client.execution.result-mode' = 'table';
