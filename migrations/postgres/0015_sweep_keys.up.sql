-- Keyset sweeps (issue 25, expiry and retention). memory-ttl and the
-- transcript sweep take their rows a page at a time in order of due time
-- and id, each page continuing after the last row the previous one took,
-- so that no page walks the index entries earlier pages left behind. The
-- partial indexes on the due time alone become (due time, id), which serve
-- every query the old ones did.
CREATE INDEX mnemo_memories_expiry_key_idx ON mnemo_memories (expires_at, id) WHERE status = 'active';
DROP INDEX mnemo_memories_expiry_idx;
CREATE INDEX mnemo_sessions_retain_key_idx ON mnemo_sessions (retain_until, id) WHERE transcript_retained;
DROP INDEX mnemo_sessions_retain_idx;
-- Retention pages by (age, id): a sweep writes its audit rows with one time.
CREATE INDEX mnemo_memories_inactive_idx ON mnemo_memories (updated_at, id) WHERE status <> 'active';
CREATE INDEX mnemo_memory_history_at_key_idx ON mnemo_memory_history (at, id);
DROP INDEX mnemo_memory_history_at_idx;
CREATE INDEX mnemo_extraction_runs_created_key_idx ON mnemo_extraction_runs (created_at, id);
DROP INDEX mnemo_extraction_runs_created_idx;
-- An erasure deletes a user's sessions, which cascades to their extraction
-- runs: without an index on session_id (the unique one is partial, of
-- final runs only) each session deleted scanned the whole table.
CREATE INDEX mnemo_extraction_runs_session_idx ON mnemo_extraction_runs (session_id);
