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
    WHERE status = 'active' AND (key GLOB ('*[' || char(65, 45, 90, 9, 45, 13, 32, 133, 160, 304, 383, 5760, 8192, 45, 8202, 8232, 45, 8233, 8239, 8287, 8490, 12288) || ']*') OR category GLOB ('*[' || char(65, 45, 90, 9, 45, 13, 32, 133, 160, 304, 383, 5760, 8192, 45, 8202, 8232, 45, 8233, 8239, 8287, 8490, 12288) || ']*') OR value NOT GLOB ('*[' || char(48, 45, 57, 65, 45, 90, 97, 45, 122, 192, 45, 591, 880, 45, 1023, 1024, 45, 1279, 1488, 45, 1514, 1568, 45, 1610, 2308, 45, 2361, 12353, 45, 12543, 19968, 45, 40959, 44032, 45, 55203) || ']*'));
