-- A duration option that is not a duration fails where it is SET, with a caret.
SET 'table.exec.emit.allow-lateness' = 'a while';
