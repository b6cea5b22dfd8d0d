-- The batch a request was a line of (docs/batches.md); NULL for an interactive request. A batch's
-- records are read by its id. SQLite's 0022 makes the same change.
ALTER TABLE generations ADD COLUMN batch_id text;
CREATE INDEX generations_by_batch ON generations (batch_id) WHERE batch_id IS NOT NULL;
