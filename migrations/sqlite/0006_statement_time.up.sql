-- Statement time: every memory, profile field and record carries when it was
-- said (stated_at, valid time) beside when Mnemo learnt it (created_at or
-- updated_at, recorded time). A memory replaced by a newer statement says when
-- and by which memory (invalidated_at, invalidated_by). Event memories carry
-- the civil date they are about and the words that named it.
ALTER TABLE mnemo_memories ADD COLUMN stated_at text NOT NULL DEFAULT '';
UPDATE mnemo_memories SET stated_at = created_at;
ALTER TABLE mnemo_memories ADD COLUMN invalidated_at text;
ALTER TABLE mnemo_memories ADD COLUMN invalidated_by text NOT NULL DEFAULT '';
ALTER TABLE mnemo_memories ADD COLUMN event_date text NOT NULL DEFAULT '';
ALTER TABLE mnemo_memories ADD COLUMN wording text NOT NULL DEFAULT '';
UPDATE mnemo_memories SET invalidated_at = updated_at WHERE status = 'deprecated';
CREATE INDEX mnemo_memories_key_stated_idx ON mnemo_memories (user_id, key, stated_at);

-- Each time a memory was said: the timeline a key's memories are derived
-- from, whatever order the sessions arrived in. A memory is a run of
-- consecutive statements of one value. Forgetting the memory deletes them.
CREATE TABLE mnemo_memory_statements (
    id          text PRIMARY KEY,
    memory_id   text NOT NULL REFERENCES mnemo_memories (id) ON DELETE CASCADE,
    user_id     text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    key         text NOT NULL,
    value       text NOT NULL,
    category    text NOT NULL,
    importance  integer NOT NULL,
    confidence  real NOT NULL,
    expires_at  text,
    stated_at   text NOT NULL,
    session_id  text NOT NULL DEFAULT '',
    message_id  text NOT NULL DEFAULT '',
    weight      integer NOT NULL DEFAULT 1,
    event_date  text NOT NULL DEFAULT '',
    wording     text NOT NULL DEFAULT '',
    created_at  text NOT NULL
);
CREATE INDEX mnemo_memory_statements_key_idx ON mnemo_memory_statements (user_id, key);
CREATE INDEX mnemo_memory_statements_memory_idx ON mnemo_memory_statements (memory_id);
-- A memory stored before statements were kept stands for all its confirmations.
INSERT INTO mnemo_memory_statements (id, memory_id, user_id, key, value, category, importance, confidence, expires_at,
    stated_at, session_id, message_id, weight, created_at)
SELECT id, id, user_id, key, value, category, importance, confidence, expires_at,
    created_at, source_session_id, source_message_id, confirmations, created_at
FROM mnemo_memories WHERE status IN ('active', 'deprecated', 'expired');

-- The key a forgotten memory had: a statement made before the user asked
-- to forget it, arriving late, is not remembered again.
ALTER TABLE mnemo_memory_history ADD COLUMN key text NOT NULL DEFAULT '';

-- Per profile field: when its current value was stated and by what
-- ({"field": {"at": RFC 3339, "by": "session id or actor"}}).
ALTER TABLE mnemo_profiles ADD COLUMN stated text NOT NULL DEFAULT '{}';
-- A history row's statement time, and the values it brought that were older
-- than the profile's and so were kept here only.
ALTER TABLE mnemo_profile_history ADD COLUMN stated_at text NOT NULL DEFAULT '';
UPDATE mnemo_profile_history SET stated_at = at;
ALTER TABLE mnemo_profile_history ADD COLUMN older text NOT NULL DEFAULT '{}';
-- Every value the change stated (an unchanged one too): each field's
-- timeline of statements, which its value and statement time derive from.
ALTER TABLE mnemo_profile_history ADD COLUMN said text NOT NULL DEFAULT '{}';

ALTER TABLE mnemo_records ADD COLUMN stated_at text NOT NULL DEFAULT '';
UPDATE mnemo_records SET stated_at = updated_at;
