-- The views' reads of risk findings (issue 32, "Visible"): the operations
-- page counts the risk cues recorded in the last 30 days across every
-- user and lists the lowered findings of that window, newest first. Both
-- tables grow with every session, so each read gets an index of its own
-- instead of a scan (a user's safety section reads through the user's
-- index of each).
CREATE INDEX mnemo_cues_kind_created_idx ON mnemo_cues (kind, created_at);
CREATE INDEX mnemo_risk_lowerings_created_idx ON mnemo_risk_lowerings (created_at);
