-- The schema SQLite reaches through its files 0001–0005, written fresh for PostgreSQL: nanos and
-- times in BIGINT, flags in BOOLEAN, JSON in JSONB, and identities for the orders of writing.
CREATE TABLE keys (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('account', 'allocated_child', 'shared_child')),
  parent_id TEXT REFERENCES keys(id),
  name TEXT NOT NULL,
  digest TEXT NOT NULL UNIQUE,
  masked TEXT NOT NULL,
  limit_nanos BIGINT NOT NULL DEFAULT 0,
  grace_nanos BIGINT NOT NULL DEFAULT 0,
  consumption_nanos BIGINT NOT NULL DEFAULT 0,
  expires_at BIGINT,
  disabled BOOLEAN NOT NULL DEFAULT false,
  revoked_at BIGINT,
  created_at BIGINT NOT NULL,
  rpm_limit BIGINT,
  tpm_limit BIGINT
);

CREATE TABLE generations (
  id TEXT PRIMARY KEY,
  -- The order records were written in, across every instance: a page boundary never moves.
  seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  key_id TEXT NOT NULL,
  -- The key itself, or a child's parent: an account reads its whole tree through one index.
  account_id TEXT NOT NULL,
  funding_key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  form TEXT NOT NULL,
  streamed BOOLEAN NOT NULL,
  prompt_tokens BIGINT NOT NULL,
  completion_tokens BIGINT NOT NULL,
  cost_nanos BIGINT NOT NULL,
  finish_reason TEXT,
  outcome TEXT NOT NULL,
  settled BOOLEAN NOT NULL DEFAULT false,
  created_at BIGINT NOT NULL,
  settled_at BIGINT,
  latency_ms DOUBLE PRECISION NOT NULL,
  upstream_model TEXT NOT NULL DEFAULT '',
  attempts JSONB NOT NULL DEFAULT '[]',
  usage_estimated BOOLEAN NOT NULL DEFAULT false,
  charge_capped BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX generations_pending ON generations (funding_key_id) WHERE NOT settled;
CREATE INDEX generations_by_key ON generations (key_id, created_at, seq);
CREATE INDEX generations_by_account ON generations (account_id, created_at, seq);

CREATE TABLE generation_days (
  key_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  model TEXT NOT NULL,
  requests BIGINT NOT NULL,
  prompt_tokens BIGINT NOT NULL,
  completion_tokens BIGINT NOT NULL,
  cost_nanos BIGINT NOT NULL,
  PRIMARY KEY (key_id, day, model)
);
CREATE INDEX generation_days_by_account ON generation_days (account_id, day);

CREATE TABLE key_events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES keys(id),
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  changes JSONB NOT NULL,
  note TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX key_events_by_key ON key_events (key_id, id);

CREATE TABLE key_ledger (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES keys(id),
  entry TEXT NOT NULL,
  recharge_nanos BIGINT NOT NULL,
  credit_nanos BIGINT NOT NULL,
  allocated_nanos BIGINT NOT NULL,
  limit_nanos BIGINT NOT NULL,
  counterpart_id TEXT,
  note TEXT,
  actor TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX key_ledger_by_key ON key_ledger (key_id);
