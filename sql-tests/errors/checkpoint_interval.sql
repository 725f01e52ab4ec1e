-- Checkpoints are taken at points of the input, so that a resumed run
-- writes the same output: 'execution.checkpointing.interval' is a number of
-- rows or a duration of event time. A bare duration (Flink's processing
-- time) is refused, with the spelling that means event time.
SET 'execution.checkpointing.interval' = '10 s';
