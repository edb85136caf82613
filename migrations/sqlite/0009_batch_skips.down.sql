ALTER TABLE mnemo_batch_runs DROP COLUMN skip_reasons;
ALTER TABLE mnemo_batch_runs DROP COLUMN skipped;
