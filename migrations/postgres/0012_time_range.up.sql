-- Times outside the years 1 to 9999 (issue 22 item 6). A model's event
-- date of 9999-12-31 gave a memory an expiry in the year 10000, and older
-- rows may hold a year before 1. Neither can be written as RFC 3339 or
-- JSON, so the user's memories, pack and export failed; and SQLite, which
-- holds times as text, sorted "10000-01-01" before "2026", so memory-ttl
-- expired such a memory at once. The store now keeps every time within
-- store.EarliestTime .. store.LatestTime, clamping what it writes and what
-- it reads; this repairs the rows stored before, in the columns a model's
-- or a client's date reaches: the memories' and statements' expiry and
-- statement times, records' and profile changes' statement times, and the
-- sessions' and events' own times.
--
-- The rule: a time after 9999-12-31T23:59:59.999999Z becomes that instant,
-- one before 0001-01-01T00:00:00Z becomes that one. Clamped, not made NULL:
-- a NULL expires_at means the memory's category has no TTL, while the row
-- said it expires, only never in practice, and the clamped expiry keeps
-- that; most of the other columns may not be NULL. Nothing else changes.
--
-- Postgres holds these times, and its infinities, as timestamps; only
-- reading them failed.

UPDATE mnemo_memories SET
    expires_at = CASE
        WHEN expires_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN expires_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE expires_at END,
    stated_at = CASE
        WHEN stated_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN stated_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE stated_at END,
    invalidated_at = CASE
        WHEN invalidated_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN invalidated_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE invalidated_at END
WHERE expires_at > '9999-12-31T23:59:59.999999Z' OR expires_at < '0001-01-01T00:00:00Z'
   OR stated_at > '9999-12-31T23:59:59.999999Z' OR stated_at < '0001-01-01T00:00:00Z'
   OR invalidated_at > '9999-12-31T23:59:59.999999Z' OR invalidated_at < '0001-01-01T00:00:00Z';

UPDATE mnemo_memory_statements SET
    expires_at = CASE
        WHEN expires_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN expires_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE expires_at END,
    stated_at = CASE
        WHEN stated_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN stated_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE stated_at END
WHERE expires_at > '9999-12-31T23:59:59.999999Z' OR expires_at < '0001-01-01T00:00:00Z'
   OR stated_at > '9999-12-31T23:59:59.999999Z' OR stated_at < '0001-01-01T00:00:00Z';

UPDATE mnemo_records SET
    stated_at = CASE
        WHEN stated_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN stated_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE stated_at END
WHERE stated_at > '9999-12-31T23:59:59.999999Z' OR stated_at < '0001-01-01T00:00:00Z';

UPDATE mnemo_profile_history SET
    stated_at = CASE
        WHEN stated_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN stated_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE stated_at END
WHERE stated_at > '9999-12-31T23:59:59.999999Z' OR stated_at < '0001-01-01T00:00:00Z';

UPDATE mnemo_sessions SET
    started_at = CASE
        WHEN started_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN started_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE started_at END,
    ended_at = CASE
        WHEN ended_at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN ended_at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE ended_at END,
    retain_until = CASE
        WHEN retain_until > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN retain_until < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE retain_until END
WHERE started_at > '9999-12-31T23:59:59.999999Z' OR started_at < '0001-01-01T00:00:00Z'
   OR ended_at > '9999-12-31T23:59:59.999999Z' OR ended_at < '0001-01-01T00:00:00Z'
   OR retain_until > '9999-12-31T23:59:59.999999Z' OR retain_until < '0001-01-01T00:00:00Z';

UPDATE mnemo_session_events SET
    at = CASE
        WHEN at > '9999-12-31T23:59:59.999999Z' THEN '9999-12-31T23:59:59.999999Z'
        WHEN at < '0001-01-01T00:00:00Z' THEN '0001-01-01T00:00:00Z'
        ELSE at END
WHERE at > '9999-12-31T23:59:59.999999Z' OR at < '0001-01-01T00:00:00Z';
