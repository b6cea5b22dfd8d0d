-- Batches (docs/batches.md): uploaded files, batches, and each batch's lines with their state.
-- A line is claimed by one instance for a lease (`claimed_by`, `lease_expires_at`), so a batch
-- whose instance died is taken up by another, or by the same one restarted. An output or error
-- file has no `content`: it is read from its batch's finished lines. SQLite's 0023 makes the same
-- tables.
CREATE TABLE batch_files (
  id text PRIMARY KEY,
  key_id text NOT NULL,
  purpose text NOT NULL,
  filename text NOT NULL,
  bytes integer NOT NULL,
  content text,
  batch_id text,
  created_at bigint NOT NULL
);
CREATE INDEX batch_files_by_key ON batch_files (key_id, created_at);
CREATE TABLE batches (
  id text PRIMARY KEY,
  key_id text NOT NULL,
  shape text NOT NULL,
  endpoint text NOT NULL,
  input_file_id text,
  metadata text,
  status text NOT NULL,
  output_file_id text,
  error_file_id text,
  created_at bigint NOT NULL,
  in_progress_at bigint,
  cancelling_at bigint,
  ended_at bigint,
  expires_at bigint NOT NULL,
  event_sent boolean NOT NULL DEFAULT false
);
CREATE INDEX batches_by_key ON batches (key_id, created_at);
CREATE INDEX batches_to_run ON batches (status) WHERE status IN ('in_progress', 'cancelling');
CREATE TABLE batch_lines (
  batch_id text NOT NULL,
  line_index integer NOT NULL,
  custom_id text NOT NULL,
  request text,
  state text NOT NULL,
  claimed_by text,
  lease_expires_at bigint,
  status_code integer,
  result text,
  generation_id text,
  cost_nanos bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (batch_id, line_index)
);
CREATE INDEX batch_lines_open ON batch_lines (batch_id, state) WHERE state IN ('pending', 'running');
