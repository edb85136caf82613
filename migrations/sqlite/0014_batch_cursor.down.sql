ALTER TABLE mnemo_batch_runs DROP COLUMN page_cursor;
