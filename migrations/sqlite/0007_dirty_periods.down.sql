DROP INDEX mnemo_batch_runs_dirty_idx;
ALTER TABLE mnemo_batch_runs DROP COLUMN dirty_reason;
ALTER TABLE mnemo_batch_runs DROP COLUMN dirty_at;
ALTER TABLE mnemo_batch_runs DROP COLUMN stale_seq;
ALTER TABLE mnemo_batch_runs DROP COLUMN clean_seq;
ALTER TABLE mnemo_batch_runs DROP COLUMN dirty_seq;
