/**
 * The rows of both stores as their drivers give them, and how each becomes the store's own
 * shape. One home for both engines: SQLite gives a flag as 0/1 and JSON as text, PostgreSQL a
 * boolean and parsed JSON; everything else is alike.
 */
import type {
  FundingFigures,
  GenerationRow,
  InflightRow,
  KeyEventRow,
  KeyRow,
  KeyUpdate,
} from './store';
import { fromColumns } from './generation-columns';

/** A boolean column: 0/1 in SQLite, a boolean in PostgreSQL. */
type Flag = number | boolean;
/** A JSON column: text in SQLite, parsed in PostgreSQL. */
type Json<T> = string | T;

const flag = (value: Flag) => value === true || value === 1;
const json = <T>(value: Json<T>): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value;

export type KeyRecord = {
  id: string;
  kind: KeyRow['kind'];
  parent_id: string | null;
  name: string;
  digest: string;
  masked: string;
  limit_nanos: number;
  grace_nanos: number;
  consumption_nanos: number;
  expires_at: number | null;
  disabled: Flag;
  revoked_at: number | null;
  created_at: number;
  rpm_limit: number | null;
  tpm_limit: number | null;
  replaces_id?: string | null;
  limit_reset: KeyRow['limitReset'];
  period_started_at: number | null;
  period_base_nanos: number;
  allowed_models: Json<string[]> | null;
};

export const toKeyRow = (record: KeyRecord): KeyRow => ({
  id: record.id,
  kind: record.kind,
  parentId: record.parent_id,
  name: record.name,
  digest: record.digest,
  masked: record.masked,
  limitNanos: record.limit_nanos,
  graceNanos: record.grace_nanos,
  consumptionNanos: record.consumption_nanos,
  expiresAt: record.expires_at,
  disabled: flag(record.disabled),
  revokedAt: record.revoked_at,
  createdAt: record.created_at,
  rpmLimit: record.rpm_limit ?? null,
  tpmLimit: record.tpm_limit ?? null,
  replacesId: record.replaces_id ?? null,
  limitReset: record.limit_reset,
  periodStartedAt: record.period_started_at,
  periodBaseNanos: record.period_base_nanos,
  allowedModels: record.allowed_models === null ? null : json(record.allowed_models),
});

/** The key columns a `KeyUpdate` field writes. */
export const keyColumns: Record<keyof KeyUpdate, string> = {
  name: 'name',
  limitNanos: 'limit_nanos',
  graceNanos: 'grace_nanos',
  expiresAt: 'expires_at',
  disabled: 'disabled',
  revokedAt: 'revoked_at',
  digest: 'digest',
  masked: 'masked',
  rpmLimit: 'rpm_limit',
  tpmLimit: 'tpm_limit',
  limitReset: 'limit_reset',
  periodStartedAt: 'period_started_at',
  periodBaseNanos: 'period_base_nanos',
  allowedModels: 'allowed_models',
};

/** A stored generation row: the record's columns (generation-columns.ts) and its place. */
export type GenerationRecord = Record<string, unknown> & { seq: number; created_at: number };

export const toGenerationRow = (record: GenerationRecord): GenerationRow => fromColumns(record);

export type InflightRecord = {
  id: string;
  key_id: string;
  funding_key_id: string;
  model: string;
  provider: string;
  upstream_model: string;
  form: string;
  streamed: Flag;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nanos: number;
  reserved_nanos: number;
  instance_id: string;
  lease_expires_at: number;
  created_at: number;
};

export const toInflightRow = (record: InflightRecord): InflightRow => ({
  id: record.id,
  keyId: record.key_id,
  fundingKeyId: record.funding_key_id,
  model: record.model,
  provider: record.provider,
  upstreamModel: record.upstream_model,
  form: record.form,
  streamed: flag(record.streamed),
  promptTokens: record.prompt_tokens,
  completionTokens: record.completion_tokens,
  costNanos: record.cost_nanos,
  reservedNanos: record.reserved_nanos,
  instanceId: record.instance_id,
  leaseExpiresAt: record.lease_expires_at,
  createdAt: record.created_at,
});

export type KeyEventRecord = {
  id: number;
  key_id: string;
  actor: KeyEventRow['actor'];
  action: string;
  changes: Json<KeyEventRow['changes']>;
  note: string | null;
  created_at: number;
};

export const toKeyEventRow = (record: KeyEventRecord): KeyEventRow => ({
  id: record.id,
  keyId: record.key_id,
  actor: record.actor,
  action: record.action,
  changes: json(record.changes),
  note: record.note,
  createdAt: record.created_at,
});

export type FundingRecord = {
  limit_nanos: number;
  grace_nanos: number;
  consumption_nanos: number;
  pending_nanos: number;
  reserved_nanos: number;
  period_base_nanos: number;
};

export const toFundingFigures = (record: FundingRecord): FundingFigures => ({
  limitNanos: record.limit_nanos,
  graceNanos: record.grace_nanos,
  consumptionNanos: record.consumption_nanos,
  pendingNanos: record.pending_nanos,
  reservedNanos: record.reserved_nanos,
  periodBaseNanos: record.period_base_nanos,
});
