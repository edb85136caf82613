-- Late data: a session handed over (or erased) after a batch period that
-- covers it has run marks that period dirty, in the handoff's transaction.
-- dirty_seq counts the marks; a run clears the marks it saw at its start by
-- raising clean_seq to that count, so a mark made while it runs survives.
-- stale_seq is the newest mark already reported as beyond the catch-up
-- window, so that the scheduler logs a stale period once.
ALTER TABLE mnemo_batch_runs ADD COLUMN dirty_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE mnemo_batch_runs ADD COLUMN clean_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE mnemo_batch_runs ADD COLUMN stale_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE mnemo_batch_runs ADD COLUMN dirty_at timestamptz;
ALTER TABLE mnemo_batch_runs ADD COLUMN dirty_reason text NOT NULL DEFAULT '';
CREATE INDEX mnemo_batch_runs_dirty_idx ON mnemo_batch_runs (batch, scheduled_for) WHERE dirty_seq > clean_seq;
