-- Exports expire: an archive is a copy of the user's data and must not
-- outlive it. expires_at is set when the archive is built (the export TTL, or
-- sooner when a transcript in it is due to be deleted); retention deletes
-- expired exports. An erasure that still has River jobs to scrub keeps the
-- ids those jobs name (job_refs, JSON) until they are gone.
ALTER TABLE mnemo_exports ADD COLUMN expires_at text;
CREATE INDEX mnemo_exports_expires_idx ON mnemo_exports (expires_at);
ALTER TABLE mnemo_erasures ADD COLUMN job_refs text NOT NULL DEFAULT '';
