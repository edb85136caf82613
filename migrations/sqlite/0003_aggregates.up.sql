-- Scheduled aggregates: Elder Tree's weekly analytics per user and week,
-- Clara's trends per user, anonymised insights per app and week.
CREATE TABLE mnemo_weekly_analytics (
    user_id     text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app         text NOT NULL,
    week_ending text NOT NULL,
    data        text NOT NULL,
    updated_at  text NOT NULL,
    PRIMARY KEY (user_id, week_ending)
);
CREATE INDEX mnemo_weekly_analytics_week_idx ON mnemo_weekly_analytics (app, week_ending, user_id);

CREATE TABLE mnemo_trends (
    user_id    text PRIMARY KEY REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app        text NOT NULL,
    data       text NOT NULL,
    updated_at text NOT NULL
);

CREATE TABLE mnemo_insights (
    app         text NOT NULL,
    week_ending text NOT NULL,
    data        text NOT NULL,
    updated_at  text NOT NULL,
    PRIMARY KEY (app, week_ending)
);

CREATE INDEX mnemo_sessions_app_end_idx ON mnemo_sessions (app, ended_at, user_id);
CREATE INDEX mnemo_sessions_active_idx ON mnemo_sessions (updated_at) WHERE status = 'active';
CREATE INDEX mnemo_sessions_retain_idx ON mnemo_sessions (retain_until) WHERE transcript_retained = 1;
CREATE INDEX mnemo_memory_history_at_idx ON mnemo_memory_history (at);
CREATE INDEX mnemo_batch_runs_sched_idx ON mnemo_batch_runs (batch, scheduled_for);
