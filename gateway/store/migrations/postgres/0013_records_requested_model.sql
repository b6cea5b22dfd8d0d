-- The id a client named when another model answered it (an alias, a preset, or a model whose
-- fallback answered); null otherwise. SQLite's 0018 makes the same change.
ALTER TABLE generations ADD COLUMN requested_model text;
