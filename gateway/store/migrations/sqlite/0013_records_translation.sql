-- What the gateway dropped or changed to reach the provider (`{"dropped": [...], "adjusted": [...]}`,
-- JSON text), so a client can see afterwards why its answer differs from what it asked for; NULL
-- when nothing was. PostgreSQL's 0008 makes the same change.
ALTER TABLE generations ADD COLUMN translation TEXT;
