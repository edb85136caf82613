-- Less work for every session, and a read that no longer grows with a
-- user's history.
--
-- No query reads sessions by (status, updated_at): the expiry sweep's
-- active sessions have a partial index of their own (0003). Each session
-- paid for this one twice, at the handoff and again at the settle.
DROP INDEX IF EXISTS mnemo_sessions_status_idx;

-- Every extraction reads the user's forget markers. Through the
-- (user_id, at) index that read went over all of the user's history, five
-- rows or so a session; this index holds the markers alone. The queries
-- name the action in their text, which a partial index needs.
CREATE INDEX mnemo_memory_history_forget_idx ON mnemo_memory_history (user_id, at) WHERE action = 'forget';
