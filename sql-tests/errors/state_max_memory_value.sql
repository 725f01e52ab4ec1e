-- 'tidemark.state.max-memory' takes a size as Flink writes them ('512 mb',
-- '2 gb', a number of bytes); anything else is an error at the SET.
SET 'tidemark.state.max-memory' = '1.5 gb';
