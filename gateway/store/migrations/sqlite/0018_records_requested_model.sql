-- The id a client named when another model answered it (an alias, a preset, or a model whose
-- fallback answered); null otherwise. PostgreSQL's 0013 makes the same change.
ALTER TABLE generations ADD COLUMN requested_model TEXT;
