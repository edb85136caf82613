-- Risk findings the model lowered (issue 23, item 4 of the apps' part).
-- extract.CombineRisks lets the model lower a rules finding only with an
-- explicit frame code (topic, fiction, hyperbole, past, other_person), and
-- says each time it did. One row per lowered message: the message id, the
-- rules' class and severity, the model's (class none and no severity when
-- it removed the finding) and the frame. Never the message's text. A
-- re-run of the same session's extraction records nothing twice; an
-- erasure removes the rows with the user.
CREATE TABLE mnemo_risk_lowerings (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES mnemo_users (id) ON DELETE CASCADE,
    app           text NOT NULL,
    session_id    text NOT NULL,
    message_id    text NOT NULL,
    from_class    text NOT NULL,
    from_severity text NOT NULL,
    to_class      text NOT NULL,
    to_severity   text NOT NULL DEFAULT '',
    frame         text NOT NULL,
    created_at    timestamptz NOT NULL,
    UNIQUE (session_id, message_id)
);
CREATE INDEX mnemo_risk_lowerings_user_idx ON mnemo_risk_lowerings (user_id, created_at);
