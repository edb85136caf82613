ALTER TABLE mnemo_erasures DROP COLUMN job_refs;
DROP INDEX mnemo_exports_expires_idx;
ALTER TABLE mnemo_exports DROP COLUMN expires_at;
