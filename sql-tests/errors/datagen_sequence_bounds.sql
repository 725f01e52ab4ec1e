-- A datagen sequence field needs both its start and its end.
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1');

SELECT id FROM gen;
