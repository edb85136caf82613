DROP INDEX mnemo_batch_runs_sched_idx;
DROP INDEX mnemo_memory_history_at_idx;
DROP INDEX mnemo_sessions_retain_idx;
DROP INDEX mnemo_sessions_active_idx;
DROP INDEX mnemo_sessions_app_end_idx;
DROP TABLE mnemo_insights;
DROP TABLE mnemo_trends;
DROP TABLE mnemo_weekly_analytics;
