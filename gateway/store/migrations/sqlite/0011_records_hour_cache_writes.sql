-- Of a record's cache writes, those to a one-hour cache entry: Anthropic bills them at twice the
-- prompt price, against 1.25 times for a five-minute entry, so the record says how many there were.
-- PostgreSQL's 0006 makes the same change.
ALTER TABLE generations ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
