/**
 * The storage interface the gateway needs. SQLite implements it for the embedded default; a
 * PostgreSQL store can implement the same interface later. Amounts are in nanos (billing/money).
 */
import type { KeyKind } from '../../contract/gateway';
import type { Nanos } from '../billing/money';

/** A key as stored: never the key itself, only its versioned digest. */
export type KeyRow = {
  id: string;
  kind: KeyKind;
  parentId: string | null;
  name: string;
  digest: string;
  /** Masked form (prefix and a short tail) for display; enough to recognise, not to use. */
  masked: string;
  limitNanos: Nanos;
  graceNanos: Nanos;
  consumptionNanos: Nanos;
  /** Unix seconds, or null for no expiry. */
  expiresAt: number | null;
  disabled: boolean;
  /** Unix seconds when revoked; a revoked key is never accepted again. */
  revokedAt: number | null;
  createdAt: number;
};

export type GenerationOutcome = 'completed' | 'ended_early';

/** One try of one provider before the answer started: its HTTP status, or how it failed. */
export type GenerationAttempt = { provider: string; status: number | string; latencyMs: number };

export type GenerationRow = {
  /** The request's trace id (its `cf-ray`). */
  id: string;
  keyId: string;
  /** The key whose money pays: the key itself, or a shared child's parent. */
  fundingKeyId: string;
  model: string;
  provider: string;
  form: string;
  streamed: boolean;
  promptTokens: number;
  completionTokens: number;
  costNanos: Nanos;
  finishReason: string | null;
  outcome: GenerationOutcome;
  settled: boolean;
  createdAt: number;
  settledAt: number | null;
  latencyMs: number;
  /** The model name the provider was asked for. */
  upstreamModel: string;
  /** Every provider attempt, the answering one last. */
  attempts: GenerationAttempt[];
  /** The provider reported no usage (or none for what it delivered): the gateway counted. */
  usageEstimated: boolean;
  /** The upstream's usage cost more than was reserved; the charge was capped at the reservation. */
  chargeCapped: boolean;
};

export type KeyUpdate = Partial<
  Pick<
    KeyRow,
    | 'name'
    | 'limitNanos'
    | 'graceNanos'
    | 'expiresAt'
    | 'disabled'
    | 'revokedAt'
    | 'digest'
    | 'masked'
  >
>;

/**
 * Which records a query reads: one key's (`keyId`, which wins when both are given) or an
 * account's and all its children's (`accountId`). At least one is given.
 */
export type GenerationScope = { keyId?: string; accountId?: string };

/** A position in a listing: the last record of the previous page (newest first). */
export type GenerationPosition = { createdAt: number; seq: number };

export type GenerationQuery = GenerationScope & {
  model?: string;
  outcome?: GenerationOutcome;
  /** Unix seconds, inclusive. */
  from?: number;
  /** Unix seconds, exclusive. */
  to?: number;
  /** Only records after this position (older ones, newest first). */
  after?: GenerationPosition;
  limit: number;
};

/** A listed record and its position, for the next page's cursor. */
export type ListedGeneration = { row: GenerationRow; position: GenerationPosition };

/** Requests, tokens and cost of one model on one UTC day. */
export type ActivityRow = {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costNanos: Nanos;
};

/** Who made a change to a key: the acting key's id, the operator's API, or the command line. */
export type KeyActor = 'cli' | 'admin' | 'system' | `key_${string}`;

/** One audited change to a key. Old and new values only; never a key or a digest. */
export type KeyEventRow = {
  id: number;
  keyId: string;
  actor: KeyActor;
  action: string;
  changes: Record<string, { old: unknown; new: unknown }>;
  note: string | null;
  createdAt: number;
};

/**
 * One entry of a key's money ledger: every change to a limit, with what it moved. For an account
 * key `limit = recharge + credit - allocated` (sums of the entries); see the README.
 */
export type LedgerEntry = {
  keyId: string;
  entry: 'opening' | 'recharge' | 'credit' | 'adjustment' | 'allocation' | 'return';
  rechargeNanos: Nanos;
  creditNanos: Nanos;
  /** Moved to children (on an account) or received from the parent (on a child). */
  allocatedNanos: Nanos;
  /** The change of the key's limit this entry made. */
  limitNanos: Nanos;
  /** The other key of an allocation or return. */
  counterpartId: string | null;
  note: string | null;
  actor: KeyActor;
  createdAt: number;
};

export type LedgerTotals = { rechargeNanos: Nanos; creditNanos: Nanos; allocatedNanos: Nanos };

export interface GatewayStore {
  listKeys(): KeyRow[];
  getKey(id: string): KeyRow | undefined;
  findKeyByDigest(digest: string): KeyRow | undefined;
  insertKey(row: KeyRow): void;
  updateKey(id: string, update: KeyUpdate): void;
  insertGeneration(row: GenerationRow): void;
  /** Several records in one transaction (group commit); all or none. */
  insertGenerations(rows: GenerationRow[]): void;
  /** Moves what the write-ahead log holds into the database without blocking writers. */
  checkpoint(): void;
  getGeneration(id: string): GenerationRow | undefined;
  /** Records newest first (by time, then by the order they were written), filtered. */
  listGenerations(query: GenerationQuery): ListedGeneration[];
  /** Requests, tokens and cost per UTC day and model, for days `fromDay`..`toDay` inclusive. */
  activity(scope: GenerationScope, fromDay: number, toDay: number): ActivityRow[];
  /** Unsettled cost charged to one funding key. */
  pendingFor(fundingKeyId: string): Nanos;
  insertKeyEvent(event: Omit<KeyEventRow, 'id'>): void;
  /** A key's audited changes, newest first, older than `beforeId` when given. */
  listKeyEvents(keyId: string, options: { limit: number; beforeId?: number }): KeyEventRow[];
  insertLedgerEntry(entry: LedgerEntry): void;
  ledgerTotals(keyId: string): LedgerTotals;
  /** Runs `work` in one write transaction (nested calls join it). */
  transaction<T>(work: () => T): T;
  /** Unsettled cost per funding key, for rebuilding the in-memory ledger at start-up. */
  pendingByFundingKey(): Map<string, Nanos>;
  /**
   * Moves every pending charge into its funding key's consumption in one transaction and
   * returns what moved per key.
   */
  settlePending(now: number): Map<string, Nanos>;
  /** Changes when another process (the command line) commits to the database. */
  dataVersion(): number;
  close(): void;
}
