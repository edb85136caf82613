-- The context pack's bounded read (issue 25, context pack against memories
-- per user). A kind whose pack tells a few memories (extract.PackBound)
-- reads only those: its keys, the most important memories overall and of a
-- category, the ones used lately, and every irregular one (a key or
-- category that is not in the stored form, a value that may be blank:
-- store.IrregularMemory, whose text the last index repeats exactly, as a
-- partial index serves only a query that says its condition word for
-- word). The expiry is in the first two so that they count and skip
-- expired memories without reading the rows.
CREATE INDEX mnemo_memories_pack_top_idx ON mnemo_memories (user_id, importance DESC, updated_at DESC, expires_at) WHERE status = 'active';
CREATE INDEX mnemo_memories_pack_category_idx ON mnemo_memories (user_id, category, importance DESC, updated_at DESC, expires_at) WHERE status = 'active';
CREATE INDEX mnemo_memories_pack_used_idx ON mnemo_memories (user_id, last_used_at) WHERE status = 'active';
CREATE INDEX mnemo_memories_pack_irregular_idx ON mnemo_memories (user_id)
    WHERE status = 'active' AND (key ~ '[\u0041-\u005a\u0009-\u000d\u0020\u0085\u00a0\u0130\u017f\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u212a\u3000]' OR category ~ '[\u0041-\u005a\u0009-\u000d\u0020\u0085\u00a0\u0130\u017f\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u212a\u3000]' OR value !~ '[\u0030-\u0039\u0041-\u005a\u0061-\u007a\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u05d0-\u05ea\u0620-\u064a\u0904-\u0939\u3041-\u30ff\u4e00-\u9fff\uac00-\ud7a3]');
