-- Webhooks (docs/webhooks.md): the endpoints an account registered, the outbox of deliveries
-- (written in the transaction of the change that caused them, sent by whichever instance leases
-- a row), and which crossing each endpoint has already been told about. Times in Unix ms where
-- named _ms, else Unix seconds. SQLite's 0015 makes the same tables.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- JSON arrays.
  events TEXT NOT NULL,
  key_ids TEXT,
  description TEXT,
  balance_low_nanos BIGINT,
  balance_low_percent DOUBLE PRECISION,
  expiring_soon_seconds BIGINT NOT NULL,
  -- The signing secret, sealed with a key derived from the key pepper (never stored in clear).
  secret_sealed TEXT NOT NULL,
  paused INTEGER NOT NULL DEFAULT 0,
  -- Set when the gateway stopped sending after repeated failures; resuming clears it.
  disabled_reason TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX webhooks_account ON webhooks(account_id);

CREATE TABLE webhook_deliveries (
  -- The webhook-id header: the same on every try.
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms BIGINT,
  lease_owner TEXT,
  lease_until_ms BIGINT,
  response_status INTEGER,
  latency_ms INTEGER,
  error TEXT,
  created_ms BIGINT NOT NULL,
  last_attempt_ms BIGINT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_ms);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, created_ms);

-- One row per endpoint, key and threshold event while it stays crossed; `arm` tells one crossing
-- from the next (an expiry's time), and the row goes when the key comes back above the threshold.
CREATE TABLE webhook_fired (
  webhook_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  arm TEXT NOT NULL,
  PRIMARY KEY (webhook_id, key_id, event_type)
);
