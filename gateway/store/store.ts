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
  Pick<KeyRow, 'limitNanos' | 'graceNanos' | 'expiresAt' | 'disabled' | 'revokedAt' | 'digest' | 'masked'>
>;

export interface GatewayStore {
  listKeys(): KeyRow[];
  getKey(id: string): KeyRow | undefined;
  findKeyByDigest(digest: string): KeyRow | undefined;
  insertKey(row: KeyRow): void;
  updateKey(id: string, update: KeyUpdate): void;
  insertGeneration(row: GenerationRow): void;
  getGeneration(id: string): GenerationRow | undefined;
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
