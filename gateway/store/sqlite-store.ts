/**
 * The SQLite store of the embedded gateway. WAL mode with `synchronous = NORMAL`: a commit is on
 * disk in the WAL before the call returns, so a killed process loses nothing it answered, and
 * writes stay cheap (one prepared insert per request).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Nanos } from '../billing/money';
import type {
  ActivityRow,
  GatewayStore,
  GenerationQuery,
  GenerationRow,
  GenerationScope,
  KeyEventRow,
  KeyRow,
  KeyUpdate,
} from './store';

const schema = `
CREATE TABLE IF NOT EXISTS keys (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('account', 'allocated_child', 'shared_child')),
  parent_id TEXT REFERENCES keys(id),
  name TEXT NOT NULL,
  digest TEXT NOT NULL UNIQUE,
  masked TEXT NOT NULL,
  limit_nanos INTEGER NOT NULL DEFAULT 0,
  grace_nanos INTEGER NOT NULL DEFAULT 0,
  consumption_nanos INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  disabled INTEGER NOT NULL DEFAULT 0,
  revoked_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS generations (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  funding_key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  form TEXT NOT NULL,
  streamed INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_nanos INTEGER NOT NULL,
  finish_reason TEXT,
  outcome TEXT NOT NULL,
  settled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  latency_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS generations_pending ON generations (funding_key_id) WHERE settled = 0;
`;

/**
 * Schema changes after the first, in order; `PRAGMA user_version` says how many are applied.
 * Each runs once, in a transaction, so a database from an older gateway is brought up to date.
 */
const migrations: string[] = [
  // Upstream providers: which upstream model answered, the attempts, and how the usage was known.
  `ALTER TABLE generations ADD COLUMN upstream_model TEXT NOT NULL DEFAULT '';
   ALTER TABLE generations ADD COLUMN attempts TEXT NOT NULL DEFAULT '[]';
   ALTER TABLE generations ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE generations ADD COLUMN charge_capped INTEGER NOT NULL DEFAULT 0;`,
  // Listing a key's records, newest first, in pages. `account_id` is the account a record belongs
  // to (the key itself, or a child's parent), so an account reads its whole tree through one
  // index; `seq` is the order records were written in, so a page boundary never moves when new
  // records arrive within the same second. Per-day totals are kept as records are written.
  `ALTER TABLE generations ADD COLUMN account_id TEXT;
   ALTER TABLE generations ADD COLUMN seq INTEGER;
   UPDATE generations SET seq = rowid,
     account_id = COALESCE((SELECT parent_id FROM keys WHERE keys.id = generations.key_id), key_id);
   CREATE UNIQUE INDEX generations_seq ON generations (seq);
   CREATE INDEX generations_by_key ON generations (key_id, created_at, seq);
   CREATE INDEX generations_by_account ON generations (account_id, created_at, seq);
   CREATE TABLE generation_days (
     key_id TEXT NOT NULL,
     account_id TEXT NOT NULL,
     day INTEGER NOT NULL,
     model TEXT NOT NULL,
     requests INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost_nanos INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, model)
   ) WITHOUT ROWID;
   CREATE INDEX generation_days_by_account ON generation_days (account_id, day);
   INSERT INTO generation_days
     SELECT key_id, account_id, created_at / 86400, model, COUNT(*), SUM(prompt_tokens),
       SUM(completion_tokens), SUM(cost_nanos)
     FROM generations GROUP BY key_id, created_at / 86400, model;`,
  // Key management: an audit row for every change, and a ledger of every change to a limit.
  // Keys from before the ledger get one opening entry that matches what their balance showed.
  `CREATE TABLE key_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     key_id TEXT NOT NULL REFERENCES keys(id),
     actor TEXT NOT NULL,
     action TEXT NOT NULL,
     changes TEXT NOT NULL,
     note TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX key_events_by_key ON key_events (key_id, id);
   CREATE TABLE key_ledger (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     key_id TEXT NOT NULL REFERENCES keys(id),
     entry TEXT NOT NULL,
     recharge_nanos INTEGER NOT NULL,
     credit_nanos INTEGER NOT NULL,
     allocated_nanos INTEGER NOT NULL,
     limit_nanos INTEGER NOT NULL,
     counterpart_id TEXT,
     note TEXT,
     actor TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX key_ledger_by_key ON key_ledger (key_id);
   INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos, limit_nanos,
       counterpart_id, note, actor, created_at)
     SELECT id, 'opening', limit_nanos + given, 0, given, limit_nanos, NULL,
       'balance before the ledger', 'system', CAST(strftime('%s', 'now') AS INTEGER)
     FROM (SELECT account.id, account.limit_nanos,
             (SELECT IFNULL(SUM(child.limit_nanos), 0) FROM keys AS child
              WHERE child.parent_id = account.id AND child.kind = 'allocated_child'
                AND child.revoked_at IS NULL) AS given
           FROM keys AS account WHERE account.kind = 'account');
   INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos, limit_nanos,
       counterpart_id, note, actor, created_at)
     SELECT id, 'opening', 0, 0, limit_nanos, limit_nanos, parent_id, 'balance before the ledger',
       'system', CAST(strftime('%s', 'now') AS INTEGER)
     FROM keys WHERE kind = 'allocated_child';`,
];

type KeyRecord = {
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
  disabled: number;
  revoked_at: number | null;
  created_at: number;
};

const toKeyRow = (record: KeyRecord): KeyRow => ({
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
  disabled: record.disabled === 1,
  revokedAt: record.revoked_at,
  createdAt: record.created_at,
});

type GenerationRecord = {
  id: string;
  key_id: string;
  funding_key_id: string;
  model: string;
  provider: string;
  form: string;
  streamed: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nanos: number;
  finish_reason: string | null;
  outcome: GenerationRow['outcome'];
  settled: number;
  created_at: number;
  settled_at: number | null;
  latency_ms: number;
  upstream_model: string;
  attempts: string;
  usage_estimated: number;
  charge_capped: number;
};

const toGenerationRow = (record: GenerationRecord): GenerationRow => ({
  id: record.id,
  keyId: record.key_id,
  fundingKeyId: record.funding_key_id,
  model: record.model,
  provider: record.provider,
  form: record.form,
  streamed: record.streamed === 1,
  promptTokens: record.prompt_tokens,
  completionTokens: record.completion_tokens,
  costNanos: record.cost_nanos,
  finishReason: record.finish_reason,
  outcome: record.outcome,
  settled: record.settled === 1,
  createdAt: record.created_at,
  settledAt: record.settled_at,
  latencyMs: record.latency_ms,
  upstreamModel: record.upstream_model,
  attempts: JSON.parse(record.attempts) as GenerationRow['attempts'],
  usageEstimated: record.usage_estimated === 1,
  chargeCapped: record.charge_capped === 1,
});

const keyColumns: Record<keyof KeyUpdate, string> = {
  name: 'name',
  limitNanos: 'limit_nanos',
  graceNanos: 'grace_nanos',
  expiresAt: 'expires_at',
  disabled: 'disabled',
  revokedAt: 'revoked_at',
  digest: 'digest',
  masked: 'masked',
};

type KeyEventRecord = {
  id: number;
  key_id: string;
  actor: KeyEventRow['actor'];
  action: string;
  changes: string;
  note: string | null;
  created_at: number;
};

const toKeyEventRow = (record: KeyEventRecord): KeyEventRow => ({
  id: record.id,
  keyId: record.key_id,
  actor: record.actor,
  action: record.action,
  changes: JSON.parse(record.changes) as KeyEventRow['changes'],
  note: record.note,
  createdAt: record.created_at,
});

const SECONDS_PER_DAY = 86_400;

/** The WHERE terms and parameters of a scope (one key, or an account's tree). */
function scopeTerms(scope: GenerationScope): { terms: string[]; params: Record<string, string> } {
  const terms: string[] = [];
  const params: Record<string, string> = {};
  // One term, so the planner has one index to read in order (a key's own is the narrower).
  if (scope.keyId !== undefined) {
    terms.push('key_id = @keyId');
    params.keyId = scope.keyId;
  } else if (scope.accountId !== undefined) {
    terms.push('account_id = @accountId');
    params.accountId = scope.accountId;
  }
  if (terms.length === 0) throw new Error('A generation query needs a keyId or an accountId.');
  return { terms, params };
}

/**
 * The SQL of a generation listing. Every shape it takes reads one index in order
 * (`generations_by_key` or `generations_by_account`: scope, then time, then `seq`), so a page costs
 * the same with a million records as with ten. Exported so a test can check the query plan.
 */
export function generationListQuery(query: GenerationQuery): {
  sql: string;
  params: Record<string, string | number>;
} {
  const { terms, params } = scopeTerms(query);
  const values: Record<string, string | number> = { ...params, limit: query.limit };
  if (query.model !== undefined) {
    terms.push('model = @model');
    values.model = query.model;
  }
  if (query.outcome !== undefined) {
    terms.push('outcome = @outcome');
    values.outcome = query.outcome;
  }
  if (query.from !== undefined) {
    terms.push('created_at >= @from');
    values.from = query.from;
  }
  if (query.to !== undefined) {
    terms.push('created_at < @to');
    values.to = query.to;
  }
  if (query.after !== undefined) {
    // The first term bounds the index range; the second drops what the last page already gave.
    terms.push('created_at <= @afterTime AND (created_at < @afterTime OR seq < @afterSeq)');
    values.afterTime = query.after.createdAt;
    values.afterSeq = query.after.seq;
  }
  return {
    sql: `SELECT * FROM generations WHERE ${terms.join(' AND ')}
      ORDER BY created_at DESC, seq DESC LIMIT @limit`,
    params: values,
  };
}

export function openSqliteStore(
  databasePath: string,
  options: {
    /**
     * SQLite checkpoints the write-ahead log inside whichever commit fills it, which puts a
     * burst of page copies on some unlucky request. The gateway turns that off and checkpoints
     * on a timer instead (`checkpoint()`); the command line keeps the default.
     */
    autoCheckpoint?: boolean;
  } = {},
): GatewayStore {
  if (databasePath !== ':memory:') fs.mkdirSync(path.dirname(databasePath), { recursive: true });
  const database = new Database(databasePath);
  database.pragma('journal_mode = WAL');
  if (options.autoCheckpoint === false) database.pragma('wal_autocheckpoint = 0');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // The command line and a running gateway share the file: wait for the other's lock briefly.
  database.pragma('busy_timeout = 5000');
  database.exec(schema);
  const applied = database.pragma('user_version', { simple: true }) as number;
  migrations.slice(applied).forEach((migration, index) => {
    database.transaction(() => {
      database.exec(migration);
      database.pragma(`user_version = ${applied + index + 1}`);
    })();
  });

  const statements = {
    dataVersion: database.prepare('PRAGMA data_version').pluck(),
    listKeys: database.prepare<[], KeyRecord>('SELECT * FROM keys ORDER BY created_at, id'),
    getKey: database.prepare<[string], KeyRecord>('SELECT * FROM keys WHERE id = ?'),
    findKeyByDigest: database.prepare<[string], KeyRecord>('SELECT * FROM keys WHERE digest = ?'),
    insertKey: database.prepare(
      `INSERT INTO keys (id, kind, parent_id, name, digest, masked, limit_nanos, grace_nanos,
         consumption_nanos, expires_at, disabled, revoked_at, created_at)
       VALUES (@id, @kind, @parentId, @name, @digest, @masked, @limitNanos, @graceNanos,
         @consumptionNanos, @expiresAt, @disabled, @revokedAt, @createdAt)`,
    ),
    // `account_id`: the key's parent, or the key itself; `seq`: one more than the last written.
    insertGeneration: database.prepare(
      `INSERT INTO generations (id, key_id, funding_key_id, model, provider, form, streamed,
         prompt_tokens, completion_tokens, cost_nanos, finish_reason, outcome, settled, created_at,
         settled_at, latency_ms, upstream_model, attempts, usage_estimated, charge_capped,
         account_id, seq)
       VALUES (@id, @keyId, @fundingKeyId, @model, @provider, @form, @streamed, @promptTokens,
         @completionTokens, @costNanos, @finishReason, @outcome, @settled, @createdAt, @settledAt,
         @latencyMs, @upstreamModel, @attempts, @usageEstimated, @chargeCapped,
         COALESCE((SELECT parent_id FROM keys WHERE id = @keyId), @keyId),
         (SELECT IFNULL(MAX(seq), 0) + 1 FROM generations))`,
    ),
    addToDay: database.prepare(
      `INSERT INTO generation_days (key_id, account_id, day, model, requests, prompt_tokens,
         completion_tokens, cost_nanos)
       VALUES (@keyId, COALESCE((SELECT parent_id FROM keys WHERE id = @keyId), @keyId), @day,
         @model, 1, @promptTokens, @completionTokens, @costNanos)
       ON CONFLICT (key_id, day, model) DO UPDATE SET
         requests = requests + 1,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
         completion_tokens = completion_tokens + excluded.completion_tokens,
         cost_nanos = cost_nanos + excluded.cost_nanos`,
    ),
    pendingFor: database
      .prepare<[string], number>(
        'SELECT IFNULL(SUM(cost_nanos), 0) FROM generations WHERE settled = 0 AND funding_key_id = ?',
      )
      .pluck(),
    insertKeyEvent: database.prepare(
      `INSERT INTO key_events (key_id, actor, action, changes, note, created_at)
       VALUES (@keyId, @actor, @action, @changes, @note, @createdAt)`,
    ),
    listKeyEvents: database.prepare<[string, number, number], KeyEventRecord>(
      'SELECT * FROM key_events WHERE key_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    ),
    insertLedgerEntry: database.prepare(
      `INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos,
         limit_nanos, counterpart_id, note, actor, created_at)
       VALUES (@keyId, @entry, @rechargeNanos, @creditNanos, @allocatedNanos, @limitNanos,
         @counterpartId, @note, @actor, @createdAt)`,
    ),
    ledgerTotals: database.prepare<
      [string],
      { rechargeNanos: number; creditNanos: number; allocatedNanos: number }
    >(
      `SELECT IFNULL(SUM(recharge_nanos), 0) AS rechargeNanos, IFNULL(SUM(credit_nanos), 0) AS creditNanos,
         IFNULL(SUM(allocated_nanos), 0) AS allocatedNanos
       FROM key_ledger WHERE key_id = ?`,
    ),
    getGeneration: database.prepare<[string], GenerationRecord>(
      'SELECT * FROM generations WHERE id = ?',
    ),
    pending: database.prepare<[], { funding_key_id: string; total: number }>(
      `SELECT funding_key_id, SUM(cost_nanos) AS total FROM generations
       WHERE settled = 0 GROUP BY funding_key_id`,
    ),
    markSettled: database.prepare<[number]>(
      'UPDATE generations SET settled = 1, settled_at = ? WHERE settled = 0',
    ),
    addConsumption: database.prepare<[number, string]>(
      'UPDATE keys SET consumption_nanos = consumption_nanos + ? WHERE id = ?',
    ),
  };

  const pendingByFundingKey = (): Map<string, Nanos> =>
    new Map(statements.pending.all().map((row) => [row.funding_key_id, row.total]));

  // Statements of listings, one per shape of filter, prepared once each.
  const prepared = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };

  const insertOneGeneration = (row: GenerationRow) => {
    statements.insertGeneration.run({
      ...row,
      streamed: row.streamed ? 1 : 0,
      settled: row.settled ? 1 : 0,
      attempts: JSON.stringify(row.attempts),
      usageEstimated: row.usageEstimated ? 1 : 0,
      chargeCapped: row.chargeCapped ? 1 : 0,
    });
    statements.addToDay.run({
      keyId: row.keyId,
      day: Math.floor(row.createdAt / SECONDS_PER_DAY),
      model: row.model,
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens,
      costNanos: row.costNanos,
    });
  };
  const insertGeneration = database.transaction(insertOneGeneration);
  const insertGenerations = database.transaction((rows: GenerationRow[]) => {
    for (const row of rows) insertOneGeneration(row);
  });

  const settle = database.transaction((now: number) => {
    const moved = pendingByFundingKey();
    for (const [keyId, nanos] of moved) statements.addConsumption.run(nanos, keyId);
    statements.markSettled.run(now);
    return moved;
  });

  return {
    listKeys: () => statements.listKeys.all().map(toKeyRow),
    getKey: (id) => {
      const record = statements.getKey.get(id);
      return record ? toKeyRow(record) : undefined;
    },
    findKeyByDigest: (digest) => {
      const record = statements.findKeyByDigest.get(digest);
      return record ? toKeyRow(record) : undefined;
    },
    insertKey: (row) => {
      statements.insertKey.run({ ...row, disabled: row.disabled ? 1 : 0 });
    },
    updateKey: (id, update) => {
      const entries = Object.entries(update).filter(([, value]) => value !== undefined);
      if (entries.length === 0) return;
      const assignments = entries.map(
        ([field]) => `${keyColumns[field as keyof KeyUpdate]} = @${field}`,
      );
      const values = Object.fromEntries(
        entries.map(([field, value]) => [
          field,
          typeof value === 'boolean' ? Number(value) : value,
        ]),
      );
      database
        .prepare(`UPDATE keys SET ${assignments.join(', ')} WHERE id = @id`)
        .run({ ...values, id });
    },
    insertGeneration: (row) => insertGeneration(row),
    insertGenerations: (rows) => insertGenerations(rows),
    checkpoint: () => {
      database.pragma('wal_checkpoint(PASSIVE)');
    },
    getGeneration: (id) => {
      const record = statements.getGeneration.get(id);
      return record ? toGenerationRow(record) : undefined;
    },
    listGenerations: (query) => {
      const { sql, params } = generationListQuery(query);
      return (prepare(sql).all(params) as Array<GenerationRecord & { seq: number }>).map(
        (record) => ({
          row: toGenerationRow(record),
          position: { createdAt: record.created_at, seq: record.seq },
        }),
      );
    },
    activity: (scope, fromDay, toDay) => {
      const { terms, params } = scopeTerms(scope);
      const sql = `SELECT day, model, SUM(requests) AS requests, SUM(prompt_tokens) AS promptTokens,
          SUM(completion_tokens) AS completionTokens, SUM(cost_nanos) AS costNanos
        FROM generation_days WHERE ${terms.join(' AND ')} AND day BETWEEN @fromDay AND @toDay
        GROUP BY day, model ORDER BY day, model`;
      return prepare(sql).all({ ...params, fromDay, toDay }) as ActivityRow[];
    },
    pendingFor: (fundingKeyId) => statements.pendingFor.get(fundingKeyId) ?? 0,
    insertKeyEvent: (event) => {
      statements.insertKeyEvent.run({ ...event, changes: JSON.stringify(event.changes) });
    },
    listKeyEvents: (keyId, { limit, beforeId }) =>
      statements.listKeyEvents
        .all(keyId, beforeId ?? Number.MAX_SAFE_INTEGER, limit)
        .map(toKeyEventRow),
    insertLedgerEntry: (entry) => {
      statements.insertLedgerEntry.run(entry);
    },
    ledgerTotals: (keyId) => statements.ledgerTotals.get(keyId)!,
    transaction: (work) => database.transaction(work).immediate(),
    pendingByFundingKey,
    settlePending: (now) => settle(now),
    // On every authenticated request: a prepared statement, a few microseconds.
    dataVersion: () => statements.dataVersion.get() as number,
    close: () => database.close(),
  };
}
