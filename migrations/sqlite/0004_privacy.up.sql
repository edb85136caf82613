-- User data controls: exports (the archive is sealed like transcripts) and
-- erasure requests (kept apart from the user's rows, which they delete).
CREATE TABLE mnemo_exports (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    status       text NOT NULL,
    error        text NOT NULL DEFAULT '',
    created_at   text NOT NULL,
    finished_at  text
);
CREATE INDEX mnemo_exports_user_idx ON mnemo_exports (user_id);

CREATE TABLE mnemo_export_chunks (
    export_id  text NOT NULL REFERENCES mnemo_exports (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    key_id     text NOT NULL,
    nonce      blob NOT NULL,
    ciphertext blob NOT NULL,
    sha256     blob NOT NULL,
    PRIMARY KEY (export_id, seq)
);

CREATE TABLE mnemo_erasures (
    id           text PRIMARY KEY,
    user_id      text NOT NULL,
    requested_at text NOT NULL
);
