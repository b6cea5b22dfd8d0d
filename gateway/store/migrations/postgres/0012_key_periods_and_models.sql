-- Budgets that renew and models a key may use (docs/keys-and-money.md). `period_base_nanos` is
-- what the key had charged (consumption plus pending) when its current period began: the period's
-- consumption is what it has charged since. `allowed_models` is a JSON list of ids and patterns,
-- NULL for every model. Each past period is a row of `key_periods`, with the base it began at.
-- SQLite's 0017 makes the same change.
ALTER TABLE keys ADD COLUMN limit_reset text NOT NULL DEFAULT 'none';
ALTER TABLE keys ADD COLUMN period_started_at bigint;
ALTER TABLE keys ADD COLUMN period_base_nanos bigint NOT NULL DEFAULT 0;
ALTER TABLE keys ADD COLUMN allowed_models jsonb;
CREATE TABLE key_periods (
  key_id text NOT NULL REFERENCES keys (id),
  started_at bigint NOT NULL,
  ended_at bigint NOT NULL,
  limit_nanos bigint NOT NULL,
  base_nanos bigint NOT NULL,
  -- What the next period's base was held below what the key had charged (an allocated child
  -- its account could not refill): spent in this period, though not in the bases' difference.
  capped_nanos bigint NOT NULL DEFAULT 0,
  -- A period whose limit_reset changed may begin where an earlier one did: the end tells them apart.
  PRIMARY KEY (key_id, started_at, ended_at)
);
