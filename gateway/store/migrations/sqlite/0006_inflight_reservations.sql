-- Several instances: each funding key keeps its unsettled (pending) and reserved totals, so
-- admission is one guarded row update; running requests are written down (in-flight rows) so a
-- crash leaves a record of what was delivered.
ALTER TABLE keys ADD COLUMN pending_nanos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE keys ADD COLUMN reserved_nanos INTEGER NOT NULL DEFAULT 0;
UPDATE keys SET pending_nanos = (
  SELECT IFNULL(SUM(cost_nanos), 0) FROM generations
  WHERE settled = 0 AND funding_key_id = keys.id
);
CREATE TABLE inflight (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  funding_key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  upstream_model TEXT NOT NULL,
  form TEXT NOT NULL,
  streamed INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  cost_nanos INTEGER NOT NULL DEFAULT 0,
  reserved_nanos INTEGER NOT NULL DEFAULT 0,
  instance_id TEXT NOT NULL,
  lease_expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
-- No secondary index: the table holds only the requests running now, so reclaiming scans it
-- whole in no time, while each index would cost every request an insert and a delete more.
