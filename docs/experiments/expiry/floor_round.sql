-- One round of floor.sql (see there).
\echo round :round, :n rows a statement

\echo memories: the bare update (status, updated_at), no row lock, no audit
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid FROM mnemo_memories
    WHERE status = 'active' AND expires_at <= '2026-11-27T00:00:00Z' ORDER BY expires_at, id LIMIT :n)
UPDATE mnemo_memories SET status = 'expired', updated_at = '2026-11-27T00:00:00Z'
WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND status || '' = 'active';
COMMIT;

\echo memories: the update with the pick row locks (FOR UPDATE SKIP LOCKED)
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid FROM mnemo_memories
    WHERE status = 'active' AND expires_at <= '2026-11-27T00:00:00Z' ORDER BY expires_at, id LIMIT :n FOR UPDATE SKIP LOCKED)
UPDATE mnemo_memories SET status = 'expired', updated_at = '2026-11-27T00:00:00Z'
WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND status || '' = 'active';
COMMIT;

\echo memories: the sweep statement (row locks, update, an audit row each with its foreign key)
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid, expires_at, id FROM mnemo_memories
    WHERE status = 'active' AND expires_at <= '2026-11-27T00:00:00Z' ORDER BY expires_at, id LIMIT :n FOR UPDATE SKIP LOCKED),
  expired AS (UPDATE mnemo_memories SET status = 'expired', updated_at = '2026-11-27T00:00:00Z'
    WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND status || '' = 'active' RETURNING id, user_id),
  audit AS (INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at)
    SELECT 'floor-' || md5(id), id, user_id, 'expire', 'ttl', '', '2026-11-27T00:00:00Z' FROM expired)
SELECT count(*) FROM expired;
COMMIT;

\echo transcripts: the sessions update alone
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid FROM mnemo_sessions
    WHERE transcript_retained AND retain_until <= '2026-11-27T00:00:00Z' ORDER BY retain_until, id LIMIT :n FOR UPDATE SKIP LOCKED)
UPDATE mnemo_sessions SET transcript_retained = false, retain_until = NULL, updated_at = '2026-11-27T00:00:00Z'
WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND transcript_retained;
COMMIT;

\echo transcripts: the sweep statement (sessions update, chunks delete)
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid FROM mnemo_sessions
    WHERE transcript_retained AND retain_until <= '2026-11-27T00:00:00Z' ORDER BY retain_until, id LIMIT :n FOR UPDATE SKIP LOCKED),
  taken AS (UPDATE mnemo_sessions SET transcript_retained = false, retain_until = NULL, updated_at = '2026-11-27T00:00:00Z'
    WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND transcript_retained RETURNING id),
  chunks AS (DELETE FROM mnemo_transcript_chunks WHERE session_id = ANY(ARRAY(SELECT id FROM taken)))
SELECT count(*) FROM taken;
COMMIT;

\echo retention for contrast: a delete of as many audit rows (no index entry is written)
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)
WITH picked AS MATERIALIZED (SELECT ctid FROM mnemo_memory_history WHERE at < '2026-01-01T00:00:00Z' ORDER BY at, id LIMIT :n)
DELETE FROM mnemo_memory_history WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked));
COMMIT;
