-- Several instances: each funding key keeps its unsettled (pending) and reserved totals, so
-- admission is one guarded row update; running requests are written down (in-flight rows) so a
-- crash leaves a record of what was delivered. SQLite's 0006 makes the same change.
ALTER TABLE keys ADD COLUMN pending_nanos BIGINT NOT NULL DEFAULT 0;
ALTER TABLE keys ADD COLUMN reserved_nanos BIGINT NOT NULL DEFAULT 0;
UPDATE keys SET pending_nanos = unsettled.total
FROM (SELECT funding_key_id, SUM(cost_nanos) AS total FROM generations
      WHERE NOT settled GROUP BY funding_key_id) AS unsettled
WHERE keys.id = unsettled.funding_key_id;

CREATE TABLE inflight (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  funding_key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  upstream_model TEXT NOT NULL,
  form TEXT NOT NULL,
  streamed BOOLEAN NOT NULL,
  prompt_tokens BIGINT NOT NULL DEFAULT 0,
  completion_tokens BIGINT NOT NULL DEFAULT 0,
  cost_nanos BIGINT NOT NULL DEFAULT 0,
  reserved_nanos BIGINT NOT NULL DEFAULT 0,
  instance_id TEXT NOT NULL,
  lease_expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
-- No secondary index: the table holds only the requests running now, so reclaiming scans it
-- whole in no time, while each index would cost every request an insert and a delete more.
