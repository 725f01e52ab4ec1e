-- 'tidemark.parallel.split-by-key' takes true, false or auto; anything else
-- is an error at the SET that gives it.
SET 'tidemark.parallel.split-by-key' = 'yes';
