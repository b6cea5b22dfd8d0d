-- The schema before versioning. Every start ran it, so it stays idempotent (IF NOT EXISTS) and
-- runs again while PRAGMA user_version is 0: user_version counts the files applied after this one.
CREATE TABLE IF NOT EXISTS keys (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('account', 'allocated_child', 'shared_child')),
  parent_id TEXT REFERENCES keys(id),
  name TEXT NOT NULL,
  digest TEXT NOT NULL UNIQUE,
  masked TEXT NOT NULL,
  limit_nanos INTEGER NOT NULL DEFAULT 0,
  grace_nanos INTEGER NOT NULL DEFAULT 0,
  consumption_nanos INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  disabled INTEGER NOT NULL DEFAULT 0,
  revoked_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS generations (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  funding_key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  form TEXT NOT NULL,
  streamed INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_nanos INTEGER NOT NULL,
  finish_reason TEXT,
  outcome TEXT NOT NULL,
  settled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  latency_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS generations_pending ON generations (funding_key_id) WHERE settled = 0;
