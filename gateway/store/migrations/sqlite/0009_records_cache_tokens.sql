-- Of a record's prompt tokens, those the upstream read from and wrote to its prompt cache: they
-- are priced apart (Anthropic bills reads at a tenth of the prompt price, writes at 1.25 times),
-- so the record shows why its cost is not prompt tokens times the prompt price.
-- PostgreSQL's 0004 makes the same change.
ALTER TABLE generations ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE generations ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
