-- Rate limits per key (null: the gateway's defaults).
ALTER TABLE keys ADD COLUMN rpm_limit INTEGER;
ALTER TABLE keys ADD COLUMN tpm_limit INTEGER;
