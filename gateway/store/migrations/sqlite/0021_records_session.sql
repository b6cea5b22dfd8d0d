-- The agent session a request belongs to (X-Claude-Code-Session-Id, Codex's session_id and the
-- like); NULL when the client sent none. A session's records are read by its id. PostgreSQL's
-- 0016 makes the same change.
ALTER TABLE generations ADD COLUMN session_id TEXT;
CREATE INDEX generations_by_session ON generations (session_id, created_at) WHERE session_id IS NOT NULL;
