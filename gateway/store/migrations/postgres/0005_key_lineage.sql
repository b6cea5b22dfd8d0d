-- The key of the same parent a key replaced (a rotation by a new key, as the workbench does it):
-- the replaced key's records stay the new key's history, so a rotation loses nothing from view.
-- SQLite's 0010 makes the same change.
ALTER TABLE keys ADD COLUMN replaces_id text REFERENCES keys (id);
