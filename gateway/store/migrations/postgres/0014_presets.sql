-- Presets the operator added through the admin API (`/admin/v1/presets`, docs/routing.md), so
-- they outlive a restart and every instance on the store serves them. `definition` is the preset
-- as accepted. `presets_version` moves with every change, in the same transaction: each gateway
-- polls it and reads the presets again when it moved. SQLite's 0019 makes the same tables.
CREATE TABLE presets (
  id TEXT PRIMARY KEY,
  definition JSONB NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE presets_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version BIGINT NOT NULL
);
INSERT INTO presets_version (id, version) VALUES (1, 0);
