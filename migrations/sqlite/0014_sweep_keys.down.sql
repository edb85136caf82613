CREATE INDEX mnemo_extraction_runs_created_idx ON mnemo_extraction_runs (created_at);
DROP INDEX mnemo_extraction_runs_created_key_idx;
CREATE INDEX mnemo_memory_history_at_idx ON mnemo_memory_history (at);
DROP INDEX mnemo_memory_history_at_key_idx;
DROP INDEX mnemo_memories_inactive_idx;
CREATE INDEX mnemo_sessions_retain_idx ON mnemo_sessions (retain_until) WHERE transcript_retained = 1;
DROP INDEX mnemo_sessions_retain_key_idx;
CREATE INDEX mnemo_memories_expiry_idx ON mnemo_memories (expires_at) WHERE status = 'active';
DROP INDEX mnemo_memories_expiry_key_idx;
