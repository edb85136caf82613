-- Batches page an app's sessions by a range of users within a time window:
-- with user_id leading after app, a page reads its own users' sessions only
-- instead of every session of the window.
CREATE INDEX mnemo_sessions_app_user_end_idx ON mnemo_sessions (app, user_id, ended_at);
