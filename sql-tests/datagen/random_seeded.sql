-- Random fields are the same on every run with the same 'seed' (tidemark's own option; Flink's
-- datagen is not reproducible): bounds and lengths hold, about half of k is NULL. The values below
-- are what the seed gives; the test checks they never change.
CREATE TABLE gen (
  id INT,
  k STRING,
  price DECIMAL(6, 2),
  flag BOOLEAN
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '6',
  'rows-per-second' = '1000000',
  'seed' = '42',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '1000',
  'fields.k.length' = '6',
  'fields.k.null-rate' = '0.5',
  'fields.price.min' = '1',
  'fields.price.max' = '10'
);

SELECT id, k, price, flag FROM gen;
