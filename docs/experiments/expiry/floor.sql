-- The floor of the expiry sweeps on Postgres (issue 25): what the writes
-- themselves cost, statement by statement, without Mnemo around them.
--
-- Run it on a COPY of a database made by
--   worker gen --app mona --users 1600 --sessions 730 --memories 600 --span 17520h \
--     --now 2026-11-27T00:00:00Z --seed 25 --unswept --retain-all
-- (it expires memories and drops transcripts, and commits):
--   createdb -h 127.0.0.1 -U postgres -T mnemo_gen mnemo_floor
--   psql -h 127.0.0.1 -U postgres -d mnemo_floor -v n=20000 -f docs/experiments/expiry/floor.sql
--
-- Each step takes the next :n due rows in the sweep's order, in a
-- transaction of its own, under EXPLAIN (ANALYZE, BUFFERS, WAL): read the
-- execution time, the WAL records (a heap write or an index entry is one
-- record each) and, for the audit insert, its foreign key's trigger time.
-- The steps run twice; the first round pays most of the full-page images
-- of the pages it is the first to touch since the last checkpoint.
\timing on

\set round 1
\ir floor_round.sql
\set round 2
\ir floor_round.sql
