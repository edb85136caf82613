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
-- SQLite holds them as text in the store's fixed-width layout: a year
-- before 1 is written "-0001-…" or "0000-…", one after 9999 with five
-- digits or more, "10000-…".

UPDATE mnemo_memories SET
    expires_at = CASE
        WHEN expires_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (expires_at GLOB '-[0-9]*' OR expires_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE expires_at END,
    stated_at = CASE
        WHEN stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE stated_at END,
    invalidated_at = CASE
        WHEN invalidated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (invalidated_at GLOB '-[0-9]*' OR invalidated_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE invalidated_at END
WHERE expires_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (expires_at GLOB '-[0-9]*' OR expires_at GLOB '0000-*')
   OR stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*')
   OR invalidated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (invalidated_at GLOB '-[0-9]*' OR invalidated_at GLOB '0000-*');

UPDATE mnemo_memory_statements SET
    expires_at = CASE
        WHEN expires_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (expires_at GLOB '-[0-9]*' OR expires_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE expires_at END,
    stated_at = CASE
        WHEN stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE stated_at END
WHERE expires_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (expires_at GLOB '-[0-9]*' OR expires_at GLOB '0000-*')
   OR stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*');

UPDATE mnemo_records SET
    stated_at = CASE
        WHEN stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE stated_at END
WHERE stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*');

UPDATE mnemo_profile_history SET
    stated_at = CASE
        WHEN stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE stated_at END
WHERE stated_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (stated_at GLOB '-[0-9]*' OR stated_at GLOB '0000-*');

UPDATE mnemo_sessions SET
    started_at = CASE
        WHEN started_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (started_at GLOB '-[0-9]*' OR started_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE started_at END,
    ended_at = CASE
        WHEN ended_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (ended_at GLOB '-[0-9]*' OR ended_at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE ended_at END,
    retain_until = CASE
        WHEN retain_until GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (retain_until GLOB '-[0-9]*' OR retain_until GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE retain_until END
WHERE started_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (started_at GLOB '-[0-9]*' OR started_at GLOB '0000-*')
   OR ended_at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (ended_at GLOB '-[0-9]*' OR ended_at GLOB '0000-*')
   OR retain_until GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (retain_until GLOB '-[0-9]*' OR retain_until GLOB '0000-*');

UPDATE mnemo_session_events SET
    at = CASE
        WHEN at GLOB '[0-9][0-9][0-9][0-9][0-9]*' THEN '9999-12-31T23:59:59.999999Z'
        WHEN (at GLOB '-[0-9]*' OR at GLOB '0000-*') THEN '0001-01-01T00:00:00.000000Z'
        ELSE at END
WHERE at GLOB '[0-9][0-9][0-9][0-9][0-9]*' OR (at GLOB '-[0-9]*' OR at GLOB '0000-*');
