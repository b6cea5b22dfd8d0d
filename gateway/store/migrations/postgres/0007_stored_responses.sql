-- Responses kept for `GET /v1/responses/{id}` and `previous_response_id` (the Responses form with
-- `store`). `context` is the whole conversation the response answered, as input items (earlier
-- turns included), so a continuation reads one row. Rows past `expires_at` are deleted.
-- SQLite's 0012 makes the same table.
CREATE TABLE stored_responses (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  -- The key itself, or a child's parent: an account may read its children's responses.
  account_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  context JSONB NOT NULL,
  response JSONB NOT NULL
);
CREATE INDEX stored_responses_expiry ON stored_responses(expires_at);
