ALTER TABLE mnemo_export_chunks ALTER COLUMN ciphertext SET STORAGE EXTENDED;
ALTER TABLE mnemo_buffer ALTER COLUMN ciphertext SET STORAGE EXTENDED;
ALTER TABLE mnemo_transcript_chunks ALTER COLUMN ciphertext SET STORAGE EXTENDED;
DROP INDEX IF EXISTS mnemo_memory_history_forget_idx;
CREATE INDEX IF NOT EXISTS mnemo_sessions_status_idx ON mnemo_sessions (status, updated_at);
