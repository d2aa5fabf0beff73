-- baton schema, version 13: a live heartbeat is a heap-only (HOT) update
-- on Postgres.
--
-- 006's lapsed index held last_seen_at, which every heartbeat moves, so
-- each heartbeat wrote a new entry into every index of agent_sessions and
-- left a dead row version behind that later reads stepped over until
-- vacuum came: under a team's load the table and its indexes grew by a
-- page every few dozen heartbeats. The sweep's index now holds the open
-- rows by id alone (the sweep reads the open rows, the live ones and the
-- lapsed ones it is about to close, and orders them itself), so no index
-- names a column a heartbeat changes. Postgres then writes each new row
-- version on its own page, with no index entry, and prunes the old ones as
-- it goes; the fill factor leaves room on every page for that.
DROP INDEX agent_sessions_lapsed_idx;
CREATE INDEX agent_sessions_open_rows_idx ON agent_sessions (id) WHERE closed_at IS NULL;
-- postgres:begin
ALTER TABLE agent_sessions SET (fillfactor = 80);
-- Every statement of baton_touch_live reaches its rows by a unique key. Its
-- plans are cached per connection, and a plan made while the table was
-- small (a new deployment) would otherwise stay a full scan as the table
-- grows, until the next ANALYZE.
ALTER FUNCTION baton_touch_live(BOOLEAN, TEXT, TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ[], TEXT[], INTEGER[], INTEGER[], UUID[], TEXT[], BOOLEAN[], INTEGER[], INTEGER[]) SET enable_seqscan = off;
-- postgres:end
