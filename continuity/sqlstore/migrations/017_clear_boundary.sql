-- baton schema, version 17: where a conversation's last /clear fell in its
-- history.
--
-- A harness may keep a conversation's id across a /clear (SessionStart
-- source clear under the id it had). The clear starts the conversation over,
-- so a bottle reconstructed from the stored prompts and Stop excerpts must
-- not bring back what was said before it; the rows themselves are kept (the
-- runtime role deletes no prompt or excerpt, and retention bounds them).
-- cleared_through_prompt is the highest prompt number recorded before the
-- last clear (0: none, or no clear), cleared_through_excerpt the id of the
-- newest Stop excerpt recorded before it (NULL: none, or no clear).
ALTER TABLE agent_sessions ADD COLUMN cleared_through_prompt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_sessions ADD COLUMN cleared_through_excerpt {{uuid}} NULL;
