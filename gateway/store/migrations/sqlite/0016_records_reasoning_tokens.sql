-- Of a record's completion tokens, those the model spent reasoning, as its provider reported them
-- (charged as completion tokens; kept so that a key's history says so). PostgreSQL's 0011 makes
-- the same change.
ALTER TABLE generations ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
