-- DELETE of a month of rows against DROP of a month's partition, for an
-- append-only table shaped like mnemo_memory_history (its columns and
-- indexes), in a scratch database. issue 25; docs/operating-at-scale.md.
--
--   createdb -h 127.0.0.1 -U postgres mnemo_partitions
--   psql -h 127.0.0.1 -U postgres -d mnemo_partitions -v rows=1000000 -f docs/experiments/partitions/delete-vs-drop.sql
--
-- :rows is the rows of one month; three months are loaded into each table.
\set ON_ERROR_STOP on
\timing off
DROP TABLE IF EXISTS audit_plain, audit_parted;

CREATE TABLE audit_plain (
    id text PRIMARY KEY, memory_id text NOT NULL, user_id text NOT NULL, action text NOT NULL,
    actor text NOT NULL, session_id text NOT NULL DEFAULT '', at timestamptz NOT NULL);
CREATE INDEX ON audit_plain (user_id, at);
CREATE INDEX ON audit_plain (at);

-- Partitioned by month: the primary key must hold the partition key.
CREATE TABLE audit_parted (
    id text NOT NULL, memory_id text NOT NULL, user_id text NOT NULL, action text NOT NULL,
    actor text NOT NULL, session_id text NOT NULL DEFAULT '', at timestamptz NOT NULL,
    PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE audit_parted_2026_01 PARTITION OF audit_parted FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE audit_parted_2026_02 PARTITION OF audit_parted FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE TABLE audit_parted_2026_03 PARTITION OF audit_parted FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE INDEX ON audit_parted (user_id, at);
CREATE INDEX ON audit_parted (at);

-- Three months, :rows a month, in time order, 10,000 users.
INSERT INTO audit_plain
SELECT md5(m::text || '-' || i::text), md5(i::text), 'u-' || (i % 10000), 'insert', 'extraction', 's-' || i,
       timestamptz '2026-01-01' + (m - 1) * interval '1 month' + (i::float8 / :rows) * interval '28 days'
FROM generate_series(1, 3) m, generate_series(1, :rows) i;
INSERT INTO audit_parted SELECT * FROM audit_plain;
VACUUM (ANALYZE) audit_plain, audit_parted;
SELECT 'rows loaded into each table' AS what, count(*) FROM audit_plain;

\timing on
\echo 'DELETE of January, 1,000 rows a statement and a commit each, as the retention batch does:'
DO $$
DECLARE n bigint;
BEGIN
  LOOP
    DELETE FROM audit_plain WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM audit_plain WHERE at < '2026-02-01' LIMIT 1000)) AND at < '2026-02-01';
    GET DIAGNOSTICS n = ROW_COUNT;
    COMMIT;
    EXIT WHEN n < 1000;
  END LOOP;
END $$;
\echo 'VACUUM after it, which the deleted rows need before their space is reused:'
VACUUM audit_plain;
\echo 'DROP of the January partition: DETACH, then DROP'
ALTER TABLE audit_parted DETACH PARTITION audit_parted_2026_01;
DROP TABLE audit_parted_2026_01;
\timing off
SELECT 'left in the plain table' AS what, count(*) FROM audit_plain
UNION ALL SELECT 'left in the partitioned table', count(*) FROM audit_parted;
SELECT 'plain table size after DELETE and VACUUM' AS what, pg_size_pretty(pg_total_relation_size('audit_plain'))
UNION ALL SELECT 'partitioned table size after DROP', pg_size_pretty(
  (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = 'audit_parted'::regclass));
DROP TABLE audit_plain, audit_parted;
