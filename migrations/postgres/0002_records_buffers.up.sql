-- Per-user records presets derive (learning progress, emotional counts,
-- repetition, preferences, reinforcement), the rolling message buffer and
-- rolling conversation summaries.
CREATE TABLE mnemo_records (
    user_id    text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app        text NOT NULL,
    kind       text NOT NULL,
    key        text NOT NULL,
    data       jsonb NOT NULL,
    session_id text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, kind, key)
);
CREATE INDEX mnemo_records_kind_idx ON mnemo_records (app, kind, updated_at);

CREATE TABLE mnemo_buffer (
    session_id text NOT NULL,
    seq        integer NOT NULL,
    user_id    text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    message_id text NOT NULL,
    key_id     text NOT NULL,
    nonce      bytea NOT NULL,
    ciphertext bytea NOT NULL,
    sha256     bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, message_id)
);
CREATE INDEX mnemo_buffer_created_idx ON mnemo_buffer (created_at);

CREATE TABLE mnemo_rolling_summaries (
    session_id       text PRIMARY KEY,
    user_id          text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app              text NOT NULL,
    summary          jsonb NOT NULL,
    messages_covered integer NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX mnemo_rolling_summaries_user_idx ON mnemo_rolling_summaries (user_id, updated_at);
