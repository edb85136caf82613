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

-- Per profile field: when its current value was stated and by what
-- ({"field": {"at": RFC 3339, "by": "session id or actor"}}).
ALTER TABLE mnemo_profiles ADD COLUMN stated text NOT NULL DEFAULT '{}';
-- A history row's statement time, and the values it brought that were older
-- than the profile's and so were kept here only.
ALTER TABLE mnemo_profile_history ADD COLUMN stated_at text NOT NULL DEFAULT '';
UPDATE mnemo_profile_history SET stated_at = at;
ALTER TABLE mnemo_profile_history ADD COLUMN older text NOT NULL DEFAULT '{}';

ALTER TABLE mnemo_records ADD COLUMN stated_at text NOT NULL DEFAULT '';
UPDATE mnemo_records SET stated_at = updated_at;
