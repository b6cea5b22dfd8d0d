-- What the gateway dropped or changed to reach the provider (`{"dropped": [...], "adjusted": [...]}`),
-- so a client can see afterwards why its answer differs from what it asked for; NULL when nothing
-- was. SQLite's 0013 makes the same change.
ALTER TABLE generations ADD COLUMN translation jsonb;
