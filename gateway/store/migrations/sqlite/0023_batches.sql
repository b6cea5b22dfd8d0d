-- Batches (docs/batches.md): uploaded files, batches, and each batch's lines with their state.
-- A line is claimed by one instance for a lease (`claimed_by`, `lease_expires_at`), so a batch
-- whose instance died is taken up by another, or by the same one restarted. An output or error
-- file has no `content`: it is read from its batch's finished lines. PostgreSQL's 0018 makes the
-- same tables.
CREATE TABLE batch_files (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  purpose TEXT NOT NULL,
  filename TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  content TEXT,
  batch_id TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX batch_files_by_key ON batch_files (key_id, created_at);
CREATE TABLE batches (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  shape TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  input_file_id TEXT,
  metadata TEXT,
  status TEXT NOT NULL,
  output_file_id TEXT,
  error_file_id TEXT,
  created_at BIGINT NOT NULL,
  in_progress_at BIGINT,
  cancelling_at BIGINT,
  ended_at BIGINT,
  expires_at BIGINT NOT NULL,
  event_sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX batches_by_key ON batches (key_id, created_at);
CREATE INDEX batches_to_run ON batches (status) WHERE status IN ('in_progress', 'cancelling');
CREATE TABLE batch_lines (
  batch_id TEXT NOT NULL,
  line_index INTEGER NOT NULL,
  custom_id TEXT NOT NULL,
  request TEXT,
  state TEXT NOT NULL,
  claimed_by TEXT,
  lease_expires_at BIGINT,
  status_code INTEGER,
  result TEXT,
  generation_id TEXT,
  cost_nanos BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (batch_id, line_index)
);
CREATE INDEX batch_lines_open ON batch_lines (batch_id, state) WHERE state IN ('pending', 'running');
