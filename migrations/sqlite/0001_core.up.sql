-- Core data model: users, sessions and everything a session leaves behind.
CREATE TABLE mnemo_users (
    id              text PRIMARY KEY,
    app             text NOT NULL,
    display_name    text NOT NULL DEFAULT '',
    timezone        text NOT NULL DEFAULT 'UTC',
    memory_disabled integer NOT NULL DEFAULT 0,
    created_at      text NOT NULL,
    updated_at      text NOT NULL
);

CREATE TABLE mnemo_sessions (
    id                  text PRIMARY KEY,
    user_id             text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app                 text NOT NULL,
    status              text NOT NULL,
    started_at          text NOT NULL,
    ended_at            text NOT NULL,
    timezone            text NOT NULL DEFAULT 'UTC',
    message_count       integer NOT NULL DEFAULT 0,
    body_sha256         text NOT NULL DEFAULT '',
    jobs                text NOT NULL DEFAULT '[]',
    transcript_retained integer NOT NULL DEFAULT 0,
    retain_until        text,
    closed_at           text,
    processed_at        text,
    updated_at          text NOT NULL
);
CREATE INDEX mnemo_sessions_user_idx ON mnemo_sessions (user_id, ended_at);
CREATE INDEX mnemo_sessions_status_idx ON mnemo_sessions (status, updated_at);

CREATE TABLE mnemo_transcript_chunks (
    session_id text NOT NULL REFERENCES mnemo_sessions (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    user_id    text NOT NULL,
    key_id     text NOT NULL,
    nonce      blob NOT NULL,
    ciphertext blob NOT NULL,
    sha256     blob NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX mnemo_transcript_chunks_user_idx ON mnemo_transcript_chunks (user_id);

CREATE TABLE mnemo_session_events (
    session_id text NOT NULL REFERENCES mnemo_sessions (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    user_id    text NOT NULL,
    kind       text NOT NULL,
    at         text NOT NULL,
    message_id text NOT NULL DEFAULT '',
    data       text NOT NULL DEFAULT '{}',
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX mnemo_session_events_user_idx ON mnemo_session_events (user_id, kind, at);

CREATE TABLE mnemo_session_summaries (
    session_id     text NOT NULL REFERENCES mnemo_sessions (id) ON DELETE CASCADE,
    prompt_version text NOT NULL,
    user_id        text NOT NULL,
    app            text NOT NULL,
    source         text NOT NULL,
    data           text NOT NULL,
    created_at     text NOT NULL,
    PRIMARY KEY (session_id, prompt_version)
);
CREATE INDEX mnemo_session_summaries_user_idx ON mnemo_session_summaries (user_id, created_at);

CREATE TABLE mnemo_profiles (
    user_id    text PRIMARY KEY REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app        text NOT NULL,
    doc        text NOT NULL,
    version    integer NOT NULL,
    updated_at text NOT NULL
);

CREATE TABLE mnemo_profile_history (
    user_id    text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    version    integer NOT NULL,
    doc        text NOT NULL,
    changed    text NOT NULL,
    actor      text NOT NULL,
    session_id text NOT NULL DEFAULT '',
    at         text NOT NULL,
    PRIMARY KEY (user_id, version)
);

CREATE TABLE mnemo_memories (
    id                text PRIMARY KEY,
    user_id           text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app               text NOT NULL,
    key               text NOT NULL,
    value             text NOT NULL,
    category          text NOT NULL,
    importance        integer NOT NULL,
    confidence        real NOT NULL,
    status            text NOT NULL,
    supersedes_id     text NOT NULL DEFAULT '',
    source_session_id text NOT NULL DEFAULT '',
    source_message_id text NOT NULL DEFAULT '',
    confirmations     integer NOT NULL DEFAULT 1,
    expires_at        text,
    last_used_at      text,
    created_at        text NOT NULL,
    updated_at        text NOT NULL
);
-- At most one active memory per key and user: the merge policy's invariant, held by the database.
CREATE UNIQUE INDEX mnemo_memories_active_key ON mnemo_memories (user_id, key) WHERE status = 'active';
CREATE INDEX mnemo_memories_expiry_idx ON mnemo_memories (expires_at) WHERE status = 'active';

CREATE TABLE mnemo_memory_history (
    id         text PRIMARY KEY,
    memory_id  text NOT NULL,
    user_id    text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    action     text NOT NULL,
    actor      text NOT NULL,
    session_id text NOT NULL DEFAULT '',
    at         text NOT NULL
);
CREATE INDEX mnemo_memory_history_user_idx ON mnemo_memory_history (user_id, at);

CREATE TABLE mnemo_cues (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app         text NOT NULL,
    kind        text NOT NULL,
    field       text NOT NULL DEFAULT '',
    detail      text NOT NULL DEFAULT '{}',
    session_id  text NOT NULL,
    created_at  text NOT NULL,
    resolved_at text,
    UNIQUE (session_id, kind, field)
);
CREATE INDEX mnemo_cues_user_idx ON mnemo_cues (user_id, created_at);

CREATE TABLE mnemo_extraction_runs (
    id             text PRIMARY KEY,
    session_id     text NOT NULL REFERENCES mnemo_sessions (id) ON DELETE CASCADE,
    user_id        text NOT NULL,
    app            text NOT NULL,
    model          text NOT NULL DEFAULT '',
    prompt_version text NOT NULL,
    source         text NOT NULL,
    outcome        text NOT NULL,
    input_tokens   integer NOT NULL DEFAULT 0,
    output_tokens  integer NOT NULL DEFAULT 0,
    cost_usd       real NOT NULL DEFAULT 0,
    duration_ms    integer NOT NULL DEFAULT 0,
    attempt        integer NOT NULL DEFAULT 1,
    final          integer NOT NULL DEFAULT 0,
    error          text NOT NULL DEFAULT '',
    created_at     text NOT NULL
);
-- One final run per session and prompt version, however often a job is retried.
CREATE UNIQUE INDEX mnemo_extraction_runs_final ON mnemo_extraction_runs (session_id, prompt_version) WHERE final = 1;
CREATE INDEX mnemo_extraction_runs_created_idx ON mnemo_extraction_runs (created_at);

CREATE TABLE mnemo_batch_runs (
    batch         text NOT NULL,
    period        text NOT NULL,
    scheduled_for text NOT NULL,
    started_at    text,
    finished_at   text,
    rows_touched  integer NOT NULL DEFAULT 0,
    outcome       text NOT NULL DEFAULT 'pending',
    PRIMARY KEY (batch, period)
);
