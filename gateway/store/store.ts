/**
 * The storage interface the gateway needs. SQLite implements it for the embedded default and
 * PostgreSQL for several instances; one contract suite (store-contract.ts) runs against both.
 * Every method is asynchronous because PostgreSQL is; SQLite answers at once. Amounts are in
 * nanos (shared/money).
 */
import type { KeyKind, LimitReset } from '../../contract/gateway';
import type { Logger } from 'pino';
import type { Nanos } from '../shared/money';
import type { GenerationOutcome, GenerationValues } from '../../contract/generation-record';
import type { CheckpointWorker } from './checkpoint-worker';
import type { ProviderStatsStore } from './provider-stats';
import type { StoredResponses } from './stored-responses';
import type { WebhookStore } from './webhooks';
import type { PresetStore } from './presets';
import type { BatchStore } from './batches';

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
  /** Requests per minute this key may make; null: the gateway's default. */
  rpmLimit: number | null;
  /** Tokens (prompt plus completion) per minute; null: the gateway's default. */
  tpmLimit: number | null;
  /**
   * The key of the same parent this one replaced (a rotation by a new key, as the workbench
   * does it); that key's records are this one's history too. Null or absent: none.
   */
  replacesId?: string | null;
  /** How often the limit renews; `none`: it covers the key's whole life. */
  limitReset: LimitReset;
  /** Unix seconds the current period began; null for `none`. */
  periodStartedAt: number | null;
  /** What the key had charged (consumption plus pending) when its period began (keys/budget-period.ts). */
  periodBaseNanos: Nanos;
  /** Model ids and patterns the key may use (contract/model-patterns.ts); null: every model. */
  allowedModels: string[] | null;
};

export type { GenerationAttempt, GenerationOutcome } from '../../contract/generation-record';

/**
 * A generation record, its fields defined once in contract/generation-record.ts (which says what
 * each one means).
 */
export type GenerationRow = GenerationValues & {
  /**
   * Only when writing: the request's in-flight row was written. If the store finds neither that
   * row nor a closure of it, a reclaim closed it with nothing checkpointed and gave its
   * reservation back, so the record charges nothing (`chargeCapped`). Not stored.
   */
  inflightRowWritten?: boolean;
  /**
   * Only when writing: the start of the funding key's budget period when the request was
   * admitted, set near a period's end. If the key's period has moved on since, the cost belongs
   * to the earlier period and joins the new period's base (keys/budget-period.ts). Not stored.
   */
  admittedPeriodStart?: number;
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
    | 'rpmLimit'
    | 'tpmLimit'
    | 'limitReset'
    | 'periodStartedAt'
    | 'periodBaseNanos'
    | 'allowedModels'
  >
>;

/**
 * A request admitted and not yet recorded: written at admission, its delivered usage
 * checkpointed about once a second, removed when its generation record is written. If its
 * instance dies, the row outlives its lease and is closed as an `ended_early` record charging
 * what was checkpointed (`reclaimInflight`), so nothing answered goes uncharged.
 */
export type InflightRow = {
  /** The request's trace id; its generation record gets the same id. */
  id: string;
  keyId: string;
  fundingKeyId: string;
  model: string;
  provider: string;
  upstreamModel: string;
  form: string;
  streamed: boolean;
  /** Checkpointed usage and its cost (zero until the answer starts). */
  promptTokens: number;
  completionTokens: number;
  costNanos: Nanos;
  /**
   * The worst case this request holds in the store's own reservation counter (`reserve`), or 0
   * when the reservation lives elsewhere (in memory, or in Redis).
   */
  reservedNanos: Nanos;
  /** Which gateway process runs it. */
  instanceId: string;
  /** Unix milliseconds; renewed while the request runs. */
  leaseExpiresAt: number;
  /** Unix seconds. */
  createdAt: number;
};

/** Delivered usage of a running request, as last checkpointed. */
export type InflightCheckpoint = {
  id: string;
  provider: string;
  upstreamModel: string;
  promptTokens: number;
  completionTokens: number;
  costNanos: Nanos;
};

/**
 * A key's past period: its limit, and what the key had charged when it began (`baseNanos`); what
 * it charged in the period is the next period's base minus this one, plus `cappedNanos`
 * (keys/budget-period.ts).
 */
export type KeyPeriodRow = {
  keyId: string;
  startedAt: number;
  endedAt: number;
  limitNanos: Nanos;
  baseNanos: Nanos;
  /** What the next base was held below the key's charges at the roll (it was spent here too). */
  cappedNanos: Nanos;
};

/** A funding key's money as the store holds it, for admission and its refusal message. */
export type FundingFigures = {
  limitNanos: Nanos;
  graceNanos: Nanos;
  consumptionNanos: Nanos;
  /** Recorded, not yet settled. */
  pendingNanos: Nanos;
  /** Held by running requests admitted through `reserve`. */
  reservedNanos: Nanos;
  /** Charged before the key's budget period began (keys/budget-period.ts); 0 without periods. */
  periodBaseNanos: Nanos;
};

/**
 * A request's own record replaced the `ended_early` record written when its in-flight row's lease
 * ran out (its instance was slow, not dead): the record now says what the request really served,
 * charging that or, when more, what the closure charged (the reservation was given back with the
 * closure), and this is what that moved on its funding key: never up. A settled closure is
 * unsettled again.
 */
export type RecordCorrection = {
  /** The record (the request's trace id). */
  id: string;
  /** What the key's pending total moved by. */
  pendingNanos: Nanos;
  /** What the key's consumption and pending together moved by: the new cost minus the old. */
  chargedNanos: Nanos;
};

/** What closing expired in-flight rows did. */
export type ReclaimResult = {
  /** The `ended_early` records written (only for rows that had checkpointed usage). */
  records: GenerationRow[];
  /** Reservations freed, per funding key (from `reserve`'s counter). */
  released: Map<string, Nanos>;
};

/**
 * Which records a query reads: one key's (`keyId`, which wins when both are given) or an
 * account's and all its children's (`accountId`). At least one is given.
 */
/**
 * Whose records a listing reads: one key's (with the keys it replaced, newest first, as
 * `predecessorIds`), or an account's tree.
 */
export type GenerationScope = {
  keyId?: string;
  predecessorIds?: readonly string[];
  accountId?: string;
};

/** A position in a listing: the last record of the previous page (newest first). */
export type GenerationPosition = { createdAt: number; seq: number };

export type GenerationQuery = GenerationScope & {
  model?: string;
  /** Only the records of this agent session. */
  sessionId?: string;
  /** Only the records of this batch's lines. */
  batchId?: string;
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

/** One agent session's requests, time, tokens, cache hits and cost. */
export type SessionRow = {
  sessionId: string;
  requests: number;
  /** Unix seconds: when its first request began (its record's time less its latency). */
  startedAt: number;
  /** Unix seconds: when its last request ended. */
  endedAt: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  /** Requests that read from the prompt cache. */
  cacheHits: number;
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
 * key `limit = recharge + credit - allocated` (sums of the entries); see docs/keys-and-money.md.
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
  /** Responses kept for the Responses form (stored-responses.ts). */
  readonly responses: StoredResponses;
  /** Per-minute availability and latency of each model's providers (provider-stats.ts). */
  readonly providerStats: ProviderStatsStore;
  /** Webhook endpoints and their outbox (webhooks.ts). */
  readonly webhooks: WebhookStore;
  /** Presets added through the admin API (presets.ts). */
  readonly presets: PresetStore;
  /** Batch files, batches and their lines (batches.ts). */
  readonly batches: BatchStore;
  /** Which engine: the gateway's default is `sqlite`; several instances share `postgres`. */
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Whether other instances may use this store at once (PostgreSQL). When not (SQLite: one
   * process owns its file), whatever in-flight rows or batch lines it finds at start are its own
   * previous run's, nobody else can close its rows, and admission may be kept in memory. The rest
   * of the gateway asks this, never the engine.
   */
  readonly shared: boolean;
  /**
   * Every key in creation order; with `accountIds`, only those accounts and their children (an
   * empty list gives none).
   */
  listKeys(options?: { accountIds?: readonly string[] }): Promise<KeyRow[]>;
  getKey(id: string): Promise<KeyRow | undefined>;
  findKeyByDigest(digest: string): Promise<KeyRow | undefined>;
  insertKey(row: KeyRow): Promise<void>;
  updateKey(id: string, update: KeyUpdate): Promise<void>;
  /**
   * Several finished records in one transaction (group commit); all or none (on PostgreSQL, one
   * statement, and a record a reclaim raced meanwhile in a transaction after it: decision 0020;
   * retried, each is written once). Each removes the in-flight row of the same id, frees what that
   * row held in the reservation counter, and adds its cost to its funding key's pending total. A
   * record whose id is already stored (a retried batch) is skipped, so nothing is charged twice;
   * but one written when the request's lease ran out (`reclaimInflight`) is replaced, and the
   * difference charged: the corrections are returned. A replacement never costs more than the
   * closure it replaces (its `costNanos` is capped there, `chargeCapped` set): the closure gave the
   * reservation back, and others may have spent it. For the same reason a record whose row was
   * written (`inflightRowWritten`) and is gone, with no closure, costs nothing (and is returned
   * among the corrections, having moved nothing). `busy`: other requests are running besides these,
   * so a store that can write from another thread (SQLite) does, and the event loop goes on serving
   * them.
   */
  insertGenerations(
    rows: GenerationRow[],
    options?: { busy?: boolean },
  ): Promise<RecordCorrection[]>;
  getGeneration(id: string): Promise<GenerationRow | undefined>;
  /** Records newest first (by time, then by the order they were written), filtered. */
  listGenerations(query: GenerationQuery): Promise<ListedGeneration[]>;
  /** Requests, tokens and cost per UTC day and model, for days `fromDay`..`toDay` inclusive. */
  activity(scope: GenerationScope, fromDay: number, toDay: number): Promise<ActivityRow[]>;
  /** The agent sessions with records since `from` (Unix seconds), the latest active first. */
  sessions(scope: GenerationScope, from: number, limit: number): Promise<SessionRow[]>;
  /** Unsettled cost charged to one funding key. */
  pendingFor(fundingKeyId: string): Promise<Nanos>;
  /**
   * Starts the key's next period at `startedAt` if its current one began at `from`, so that
   * instances rolling it at once roll it once: the ended period (its limit and base, to
   * `endedAt`) joins the key's history, and what the key has charged (consumption plus pending)
   * becomes the new base, but never more than `baseCapNanos` (an allocated child whose account
   * could not refill all it spent: its new period may spend only what it holds). True when this
   * call rolled it. Call it inside `transaction`.
   */
  rollKeyPeriod(
    id: string,
    from: number,
    endedAt: number,
    startedAt: number,
    baseCapNanos?: Nanos,
  ): Promise<boolean>;
  /** A key's past periods, newest first. */
  listKeyPeriods(keyId: string, limit: number): Promise<KeyPeriodRow[]>;
  insertKeyEvent(event: Omit<KeyEventRow, 'id'>): Promise<void>;
  /** A key's audited changes, newest first, older than `beforeId` when given. */
  listKeyEvents(
    keyId: string,
    options: { limit: number; beforeId?: number },
  ): Promise<KeyEventRow[]>;
  insertLedgerEntry(entry: LedgerEntry): Promise<void>;
  ledgerTotals(keyId: string): Promise<LedgerTotals>;
  /**
   * Runs `work` in one write transaction. Store calls made inside `work` (found through async
   * context, so callers need not pass a handle) join it; calls from elsewhere wait or run apart.
   * Rolled back when `work` throws.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Unsettled cost per funding key, for rebuilding an in-memory ledger at start-up. */
  pendingByFundingKey(): Promise<Map<string, Nanos>>;
  /**
   * Moves every pending charge into its funding key's consumption in one transaction and
   * returns what moved per key. Idempotent per record; when several instances share the store,
   * only one settles at a time (the others return an empty map).
   */
  settlePending(now: number): Promise<Map<string, Nanos>>;

  /** Writes in-flight rows (admission), in one transaction. */
  openInflight(rows: InflightRow[]): Promise<void>;
  /**
   * Checkpoints running requests' delivered usage and renews the lease of in-flight rows of
   * `instanceId` to `leaseExpiresAt` (Unix ms), in one transaction: only the rows named in
   * `renew` when it is given (the requests the instance still runs: a row it no longer runs, say
   * one it failed to drop, must lapse and be closed, not be renewed for as long as the process
   * lives), else every row of the instance.
   */
  checkpointInflight(
    instanceId: string,
    leaseExpiresAt: number,
    checkpoints: InflightCheckpoint[],
    renew?: string[],
  ): Promise<void>;
  /** Removes in-flight rows of requests that ended without a record (refused, failed), freeing what they held. */
  dropInflight(ids: string[]): Promise<void>;
  /**
   * Closes in-flight rows whose lease ended before `nowMs` (or every row of `instanceId`, for a
   * process that restarts under the same id, or an embedded gateway at start-up) as `ended_early`
   * records charging their checkpointed usage. Idempotent, safe from several instances at once.
   */
  reclaimInflight(nowMs: number, options?: { instanceId?: string }): Promise<ReclaimResult>;
  listInflight(): Promise<InflightRow[]>;

  /** A funding key's limit, consumption, pending and reserved totals. */
  fundingFigures(
    fundingKeyId: string,
    options?: {
      /**
       * Inside `transaction`: lock the key's row until commit (PostgreSQL `FOR UPDATE`), so no
       * record can add to its pending total meanwhile (Redis counters are seeded this way).
       */
      forUpdate?: boolean;
    },
  ): Promise<FundingFigures | undefined>;
  /**
   * Admission in the store itself (PostgreSQL without Redis): atomically adds `row.reservedNanos`
   * to the funding key's reserved total and writes the in-flight row, only if consumption +
   * pending + reserved + it stays within limit + grace. Returns the figures when it refuses.
   */
  reserve(row: InflightRow): Promise<{ ok: true } | { ok: false; figures: FundingFigures }>;

  /**
   * Calls `onChange` when keys change in any process sharing the store (SQLite: its
   * `keys_version` number, polled; PostgreSQL: LISTEN/NOTIFY). Returns a function that stops
   * watching.
   */
  watchKeyChanges(onChange: () => void): () => void;
  /**
   * A cheap synchronous "have the keys changed" number, where the engine has one (SQLite's
   * `keys_version`, moved by triggers on the keys table); the registry checks it on every request
   * so a change another process made is seen at once. Read once per turn of the event loop unless
   * `fresh` (the registry's own reload, which must not take an older number than it reads).
   */
  keysVersion?(fresh?: boolean): number;
  /**
   * Starts moving what the write-ahead log holds into the database every `intervalMs`, off the
   * event loop, where the engine has such a log (SQLite on a file); null where it has none.
   */
  startCheckpoints?(intervalMs: number, logger: Logger): CheckpointWorker | null;
  /** Answers when the database does (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
