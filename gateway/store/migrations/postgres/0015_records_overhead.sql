-- The time the gateway itself added to a request (its latency minus the waits on the provider),
-- in milliseconds; NULL on records from before it was kept. SQLite's 0020 makes the same change.
ALTER TABLE generations ADD COLUMN overhead_ms double precision;
