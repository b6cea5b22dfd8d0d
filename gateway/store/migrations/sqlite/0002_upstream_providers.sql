-- Upstream providers: which upstream model answered, the attempts, and how the usage was known.
ALTER TABLE generations ADD COLUMN upstream_model TEXT NOT NULL DEFAULT '';
ALTER TABLE generations ADD COLUMN attempts TEXT NOT NULL DEFAULT '[]';
ALTER TABLE generations ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE generations ADD COLUMN charge_capped INTEGER NOT NULL DEFAULT 0;
