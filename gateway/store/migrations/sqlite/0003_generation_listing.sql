-- Listing a key's records, newest first, in pages. `account_id` is the account a record belongs
-- to (the key itself, or a child's parent), so an account reads its whole tree through one
-- index; `seq` is the order records were written in, so a page boundary never moves when new
-- records arrive within the same second. Per-day totals are kept as records are written.
ALTER TABLE generations ADD COLUMN account_id TEXT;
ALTER TABLE generations ADD COLUMN seq INTEGER;
UPDATE generations SET seq = rowid,
  account_id = COALESCE((SELECT parent_id FROM keys WHERE keys.id = generations.key_id), key_id);
CREATE UNIQUE INDEX generations_seq ON generations (seq);
CREATE INDEX generations_by_key ON generations (key_id, created_at, seq);
CREATE INDEX generations_by_account ON generations (account_id, created_at, seq);
CREATE TABLE generation_days (
  key_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  model TEXT NOT NULL,
  requests INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_nanos INTEGER NOT NULL,
  PRIMARY KEY (key_id, day, model)
) WITHOUT ROWID;
CREATE INDEX generation_days_by_account ON generation_days (account_id, day);
INSERT INTO generation_days
  SELECT key_id, account_id, created_at / 86400, model, COUNT(*), SUM(prompt_tokens),
    SUM(completion_tokens), SUM(cost_nanos)
  FROM generations GROUP BY key_id, created_at / 86400, model;
