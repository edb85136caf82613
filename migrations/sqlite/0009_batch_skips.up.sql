-- A batch run isolates a user whose stored data it cannot read (a number
-- out of range, a document that does not decode): it skips them and
-- finishes the others. skipped counts the users a run skipped;
-- skip_reasons counts them by reason ({"event": 2}), never naming a user.
ALTER TABLE mnemo_batch_runs ADD COLUMN skipped integer NOT NULL DEFAULT 0;
ALTER TABLE mnemo_batch_runs ADD COLUMN skip_reasons text NOT NULL DEFAULT '{}';
