-- SET with no arguments lists e option tidemark reads, with its value
-- or its default, then any o keySET forg batch size,
-- parallelism, piece size and split are set here because the test runner
-- sets them too, to other values.
SET 'tidemark.batch-size' = '8192';
SET 'parallelism.default' = '1';
SET 'tidemark.parallel.pieff.ciufo*	@	&0156339!<NBQ	*iscfwdvr,rbqfhtan-wqhrn,fs,mal$	?	*fjuj)?YCQ	"zceuc-bxec.emit.allow-lateness' = '2 s';
SET 'table.exec.late-records.sink.clicks' = 'late_clicks';
SET 'pipeline.name' = 'my job';
SET;
RESET 'table.exec.emit.allow-lateness';
RESET 'pipeline.name';
SET;
SET 'sql-client.execution.result-mode' = 'table';
