-- A checkpoint records where each source stands in its file; a generated
-- table has no file to read again from there, so a checkpointed job over
-- one is refused before it starts, and nothing is written (the sink's
-- staged file is removed).
SET 'execution.checkpointing.dir' = 'never-written';

CREATE TABLE gen (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence',
      'fields.id.start' = '1', 'fields.id.end' = '10');

CREATE TABLE counts (window_start TIMESTAMP(3), n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'never-written.csv', 'format' = 'csv');

INSERT INTO counts
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
