/**
 * Keys and their audited changes (key events): a store by data type, written once over
 * SqlDatabase for both engines, with how other processes learn that keys changed. On SQLite,
 * triggers move `keys_version` (migration 0007) and watchers poll it; on PostgreSQL the changing
 * statement itself sends NOTIFY on the store's channel, and one connection LISTENs for them all.
 */
import type Database from 'better-sqlite3';
import pg from 'pg';
import type { Logger } from 'pino';
import type { SqlDatabase } from './sql-database';
import type { GatewayStore, KeyUpdate } from './store';
import {
  type KeyRecord,
  toKeyRow,
  type KeyEventRecord,
  toKeyEventRow,
  keyColumns,
} from './records';

export type KeyStore = Pick<
  GatewayStore,
  | 'listKeys'
  | 'getKey'
  | 'findKeyByDigest'
  | 'insertKey'
  | 'updateKey'
  | 'rollKeyPeriod'
  | 'listKeyPeriods'
  | 'insertKeyEvent'
  | 'listKeyEvents'
>;

/** A JSON column as text: SQLite keeps it so, PostgreSQL reads it into JSONB. */
const jsonList = (list: string[] | null) => (list === null ? null : JSON.stringify(list));

/**
 * `channel`: on PostgreSQL, the channel `insertKey` and `updateKey` notify on, with the key's id
 * as the payload (`keyChannel`).
 */
export function keyStore(db: SqlDatabase, options: { channel?: string } = {}): KeyStore {
  // The one place the engines differ: PostgreSQL announces the change in the same statement (the
  // notification is delivered on commit); SQLite's triggers on the table move `keys_version`.
  const announced = (statement: string) => {
    if (db.engine === 'sqlite') return statement;
    if (options.channel === undefined) throw new Error('A PostgreSQL key store needs a channel.');
    return `WITH changed AS (${statement} RETURNING id)
      SELECT pg_notify('${options.channel}', id) FROM changed`;
  };
  const one = async <R extends object>(sql: string, params: unknown[]) =>
    (await db.all<R>(sql, params))[0];
  return {
    listKeys: async (options) => {
      const accounts = options?.accountIds;
      if (accounts?.length === 0) return [];
      const marks = accounts?.map(() => '?').join(', ');
      const where = accounts ? ` WHERE id IN (${marks}) OR parent_id IN (${marks})` : '';
      const records = await db.all<KeyRecord>(
        `SELECT * FROM keys${where} ORDER BY created_at, id`,
        accounts ? [...accounts, ...accounts] : [],
      );
      return records.map(toKeyRow);
    },
    getKey: async (id) => {
      const record = await one<KeyRecord>('SELECT * FROM keys WHERE id = ?', [id]);
      return record ? toKeyRow(record) : undefined;
    },
    findKeyByDigest: async (digest) => {
      const record = await one<KeyRecord>('SELECT * FROM keys WHERE digest = ?', [digest]);
      return record ? toKeyRow(record) : undefined;
    },
    insertKey: async (row) => {
      await db.run(
        announced(
          `INSERT INTO keys (id, kind, parent_id, name, digest, masked, limit_nanos, grace_nanos,
             consumption_nanos, expires_at, disabled, revoked_at, created_at, rpm_limit, tpm_limit,
             replaces_id, limit_reset, period_started_at, period_base_nanos, allowed_models)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        [
          row.id,
          row.kind,
          row.parentId,
          row.name,
          row.digest,
          row.masked,
          row.limitNanos,
          row.graceNanos,
          row.consumptionNanos,
          row.expiresAt,
          row.disabled,
          row.revokedAt,
          row.createdAt,
          row.rpmLimit,
          row.tpmLimit,
          row.replacesId ?? null,
          row.limitReset,
          row.periodStartedAt,
          row.periodBaseNanos,
          jsonList(row.allowedModels),
        ],
      );
    },
    updateKey: async (id, update) => {
      const entries = Object.entries(update).filter(([, value]) => value !== undefined);
      if (entries.length === 0) return;
      const assignments = entries.map(([field]) => `${keyColumns[field as keyof KeyUpdate]} = ?`);
      await db.run(announced(`UPDATE keys SET ${assignments.join(', ')} WHERE id = ?`), [
        ...entries.map(([field, value]) =>
          field === 'allowedModels' ? jsonList(value as string[] | null) : value,
        ),
        id,
      ]);
    },
    rollKeyPeriod: async (id, from, endedAt, startedAt, baseCapNanos = Number.MAX_SAFE_INTEGER) => {
      // The row, locked on PostgreSQL, only while it is still in the period `from`: a second
      // instance rolling the same period waits for the first to commit, then finds it moved on.
      const lock = db.engine === 'postgres' ? ' FOR UPDATE' : '';
      const [ended] = await db.all<{ limit_nanos: number; period_base_nanos: number }>(
        `SELECT limit_nanos, period_base_nanos FROM keys WHERE id = ? AND period_started_at = ?${lock}`,
        [id, from],
      );
      if (!ended) return false;
      await db.run(
        announced(
          `UPDATE keys SET period_base_nanos = CASE
               WHEN consumption_nanos + pending_nanos < ? THEN consumption_nanos + pending_nanos
               ELSE ? END,
             period_started_at = ?
           WHERE id = ? AND period_started_at = ?`,
        ),
        [baseCapNanos, baseCapNanos, startedAt, id, from],
      );
      const [rolled] = await db.all<{ base: number; charged: number }>(
        'SELECT period_base_nanos AS base, consumption_nanos + pending_nanos AS charged FROM keys WHERE id = ?',
        [id],
      );
      await db.run(
        `INSERT INTO key_periods (key_id, started_at, ended_at, limit_nanos, base_nanos, capped_nanos)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [
          id,
          from,
          endedAt,
          ended.limit_nanos,
          ended.period_base_nanos,
          rolled!.charged - rolled!.base,
        ],
      );
      return true;
    },
    listKeyPeriods: async (keyId, limit) =>
      (
        await db.all<{
          key_id: string;
          started_at: number;
          ended_at: number;
          limit_nanos: number;
          base_nanos: number;
          capped_nanos: number;
        }>('SELECT * FROM key_periods WHERE key_id = ? ORDER BY ended_at DESC LIMIT ?', [
          keyId,
          limit,
        ])
      ).map((row) => ({
        keyId: row.key_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        limitNanos: row.limit_nanos,
        baseNanos: row.base_nanos,
        cappedNanos: row.capped_nanos,
      })),
    insertKeyEvent: async (event) => {
      // JSON as text: SQLite keeps it so, PostgreSQL reads it into the JSONB column.
      await db.run(
        `INSERT INTO key_events (key_id, actor, action, changes, note, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [
          event.keyId,
          event.actor,
          event.action,
          JSON.stringify(event.changes),
          event.note,
          event.createdAt,
        ],
      );
    },
    listKeyEvents: async (keyId, { limit, beforeId }) =>
      (
        await db.all<KeyEventRecord>(
          'SELECT * FROM key_events WHERE key_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
          [keyId, beforeId ?? Number.MAX_SAFE_INTEGER, limit],
        )
      ).map(toKeyEventRow),
  };
}

/**
 * SQLite's `keysVersion` and `watchKeyChanges`. `isBusy` tells an error of a file another
 * connection holds locked: the last number read stands until the next read.
 */
export function sqliteKeyChanges(
  database: Database.Database,
  isBusy: (error: unknown) => boolean,
): Pick<Required<GatewayStore>, 'keysVersion' | 'watchKeyChanges'> {
  const statement = database.prepare('SELECT version FROM keys_version').pluck();
  /**
   * On every authenticated request. Read once per turn of the event loop: every request read in
   * this turn was sent before the turn began, so a commit it could know of (a command line that
   * exited before it was sent) is already counted, and a busy gateway reads it once per batch of
   * requests instead of once per request.
   */
  let versionThisTurn: number | null = null;
  let lastVersion = -1;
  /** The number now; the last one read while the file is busy (the next turn reads again). */
  const readKeysVersion = (): number => {
    try {
      lastVersion = statement.get() as number;
    } catch (error) {
      if (!isBusy(error) || lastVersion === -1) throw error;
    }
    return lastVersion;
  };
  return {
    keysVersion: (fresh = false) => {
      if (fresh) return readKeysVersion();
      if (versionThisTurn === null) {
        versionThisTurn = readKeysVersion();
        setImmediate(() => (versionThisTurn = null));
      }
      return versionThisTurn;
    },
    watchKeyChanges: (onChange) => {
      let seen = readKeysVersion();
      const timer = setInterval(() => {
        const version = readKeysVersion();
        if (version !== seen) {
          seen = version;
          onChange();
        }
      }, 250);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

/**
 * The channel a PostgreSQL store's key changes are announced on, with the key's id as the
 * payload: `gateway_keys`, or `gateway_keys_<schema>` outside `public`. Notifications are
 * database-wide; the schema in the name keeps gateways (and test runs) in other schemas from
 * waking this one.
 */
export const keyChannel = (schema: string): string =>
  schema === 'public' ? 'gateway_keys' : `gateway_keys_${schema}`;

const LISTENER_RETRY_MS = 500;

/**
 * One connection that LISTENs for key changes on behalf of every watcher of the store; when it
 * drops, it reconnects, and tells the watchers something may have changed meanwhile.
 */
export class KeyChangeListener {
  private client: pg.Client | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Counts connection attempts and stops: an attempt overtaken by another ends its client. */
  private attempt = 0;
  private readonly watchers = new Set<() => void>();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly logger: Logger | undefined,
  ) {}

  watch(onChange: () => void): () => void {
    const watcher = () => onChange();
    this.watchers.add(watcher);
    if (this.watchers.size === 1) void this.connect(false);
    return () => {
      this.watchers.delete(watcher);
      if (this.watchers.size === 0) this.stop();
    };
  }

  stop(): void {
    this.attempt++;
    this.watchers.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    void client?.end().catch(() => {});
  }

  private get watching() {
    return this.watchers.size > 0;
  }

  private notify(): void {
    for (const watcher of this.watchers) {
      try {
        watcher();
      } catch (error) {
        this.logger?.error({ err: error }, 'a key-change watcher failed');
      }
    }
  }

  private async connect(afterDrop: boolean): Promise<void> {
    const attempt = ++this.attempt;
    const client = new pg.Client(this.config);
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.notify();
    });
    // Without a handler, a dropped connection's error would end the process.
    client.on('error', (error) => {
      this.logger?.warn({ err: error }, 'the key-change listener lost its connection');
    });
    client.on('end', () => {
      if (this.client !== client) return;
      this.client = null;
      this.retry();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      void client.end().catch(() => {});
      if (attempt !== this.attempt) return;
      this.logger?.warn({ err: error }, 'the key-change listener could not connect; retrying');
      this.retry();
      return;
    }
    if (!this.watching || attempt !== this.attempt) {
      void client.end().catch(() => {});
      return;
    }
    this.client = client;
    // Changes made while it was away were not heard: the watchers reread.
    if (afterDrop) this.notify();
  }

  private retry(): void {
    if (!this.watching || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.watching) void this.connect(true);
    }, LISTENER_RETRY_MS);
    this.retryTimer.unref();
  }
}
