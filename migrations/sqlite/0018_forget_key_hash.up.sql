-- A forget marker keeps a keyed hash of the forgotten key, never its text
-- (issue 34 §7): "forget|goal:quit_drinking" told what the user asked to
-- forget for as long as the audit was kept. The hash is an HMAC-SHA256
-- under this install's own secret, made once; the store makes it and
-- rewrites the markers already stored (store/forgethash.go), then keeps
-- one marker per key, category or profile: the newest, which is all the
-- "stays forgotten" check reads.
CREATE TABLE IF NOT EXISTS mnemo_install_secrets (
    name   text PRIMARY KEY,
    secret text NOT NULL
);
