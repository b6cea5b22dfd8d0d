-- Budgets that renew and models a key may use (docs/keys-and-money.md). `period_base_nanos` is
-- what the key had charged (consumption plus pending) when its current period began: the period's
-- consumption is what it has charged since. `allowed_models` is a JSON list of ids and patterns,
-- NULL for every model. Each past period is a row of `key_periods`, with the base it began at.
-- PostgreSQL's 0012 makes the same change.
ALTER TABLE keys ADD COLUMN limit_reset TEXT NOT NULL DEFAULT 'none';
ALTER TABLE keys ADD COLUMN period_started_at INTEGER;
ALTER TABLE keys ADD COLUMN period_base_nanos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE keys ADD COLUMN allowed_models TEXT;
CREATE TABLE key_periods (
  key_id TEXT NOT NULL REFERENCES keys (id),
  started_at INTEGER NOT NULL,
  ended_at INTEGER NOT NULL,
  limit_nanos INTEGER NOT NULL,
  base_nanos INTEGER NOT NULL,
  -- What the next period's base was held below what the key had charged (an allocated child
  -- its account could not refill): spent in this period, though not in the bases' difference.
  capped_nanos INTEGER NOT NULL DEFAULT 0,
  -- A period whose limit_reset changed may begin where an earlier one did: the end tells them apart.
  PRIMARY KEY (key_id, started_at, ended_at)
);
-- The new columns move `keys_version` too (0007): a running gateway must see a new period.
DROP TRIGGER keys_version_on_update;
CREATE TRIGGER keys_version_on_update AFTER UPDATE OF id, kind, parent_id, name, digest, masked,
  limit_nanos, grace_nanos, consumption_nanos, expires_at, disabled, revoked_at, created_at,
  rpm_limit, tpm_limit, limit_reset, period_started_at, period_base_nanos, allowed_models ON keys
BEGIN
  UPDATE keys_version SET version = version + 1 WHERE id = 1;
END;
