-- Responses kept for `GET /v1/responses/{id}` and `previous_response_id` (the Responses form with
-- `store`). `context` is the whole conversation the response answered, as input items (earlier
-- turns included), so a continuation reads one row. Rows past `expires_at` are deleted.
-- PostgreSQL's 0007 makes the same table.
CREATE TABLE IF NOT EXISTS stored_responses (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  -- The key itself, or a child's parent: an account may read its children's responses.
  account_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  context TEXT NOT NULL,
  response TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS stored_responses_expiry ON stored_responses(expires_at);
