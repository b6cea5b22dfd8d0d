-- A number that moves whenever a key changes in a way a running gateway must see: a key created
-- or deleted, or any column updated except the two that requests move all the time
-- (`pending_nanos`, `reserved_nanos`). Gateways read it on each turn of their event loop and read
-- their keys again when it moved. SQLite's own `PRAGMA data_version` moved on every commit of any
-- other connection, and the gateway's record-writing thread is one: it would have meant a reload
-- per batch of records. A column added to `keys` later joins the UPDATE OF list below.
CREATE TABLE keys_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);
INSERT INTO keys_version (id, version) VALUES (1, 0);
CREATE TRIGGER keys_version_on_insert AFTER INSERT ON keys
BEGIN
  UPDATE keys_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER keys_version_on_delete AFTER DELETE ON keys
BEGIN
  UPDATE keys_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER keys_version_on_update AFTER UPDATE OF id, kind, parent_id, name, digest, masked,
  limit_nanos, grace_nanos, consumption_nanos, expires_at, disabled, revoked_at, created_at,
  rpm_limit, tpm_limit ON keys
BEGIN
  UPDATE keys_version SET version = version + 1 WHERE id = 1;
END;
