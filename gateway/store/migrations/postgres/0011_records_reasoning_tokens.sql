-- Of a record's completion tokens, those the model spent reasoning, as its provider reported them
-- (charged as completion tokens; kept so that a key's history says so). SQLite's 0016 makes the
-- same change.
ALTER TABLE generations ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
