-- baton schema, version 4: per-activation counters and the Stop excerpt's
-- truncated flag.
--
-- activated_at and activation_stops restart at every activation (startup,
-- resume, resurrection: every epoch increment), so the Stop nudge's debounce
-- counts the Stops and the time of the conversation's current activation,
-- never those a closed or lapsed activation left behind. Rows that exist
-- already are in their first known activation.
ALTER TABLE agent_sessions ADD COLUMN activated_at {{time}} NULL;
ALTER TABLE agent_sessions ADD COLUMN activation_stops INTEGER NOT NULL DEFAULT 0;
UPDATE agent_sessions SET activated_at = opened_at, activation_stops = stop_count;

-- A Stop whose last assistant message is longer than the bound keeps its
-- heartbeat; the excerpt is cut and says so here, as prompts do.
ALTER TABLE stop_excerpts ADD COLUMN truncated {{bool}} NOT NULL DEFAULT FALSE;
