DROP INDEX IF EXISTS mnemo_memory_history_forget_idx;
CREATE INDEX IF NOT EXISTS mnemo_sessions_status_idx ON mnemo_sessions (status, updated_at);
