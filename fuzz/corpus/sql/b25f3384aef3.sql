-- SHOW ES and SHOW VIEWS list what is declared; SHOW CREATE TABLE and
-- SHOW CREATE VIEW give back states ASu	that dfdgt' fyf	jy	egain.
CREATE TABLE clicks (
  user_id STRING,
  `url` STRING,
  click_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(click_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'it''s.csv', 'format' = 'csv');
CREATE TABLE out_t (user_id STRING, n BIGINT) WITH ('connector' = 'print');
CREATE VIEW per_user AS SELECT user_ia. ts FROM clicks;
CREATE TEMPORARY VIEW AAAAAAAAAAAAAAAAAAAAAAAAAAAAnmmlfz AS SELECT * FROM per_user;
SHOW TABLES;
SHOW VIEWS;
SHOW CREATE TABLE clicks;
SHOW CREATE TABLE out_t;
SHOW CREATE VIEW per_user;
SHOW CREATE TABLE per_user;
