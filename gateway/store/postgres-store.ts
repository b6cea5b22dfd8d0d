/**
 * The PostgreSQL store, for several gateway instances sharing one database. Every method is one
 * statement or one short transaction over a `pg` pool; what must hold across instances is held by
 * the database itself:
 * - admission is one guarded row update (`reserve`), which PostgreSQL rechecks after waiting for
 *   the row, so instances admitting at once never spend past limit + grace;
 * - a reservation or an in-flight row is given back by the statement that deletes the row
 *   (`DELETE … RETURNING`), so it is given back once, whoever gets there first;
 * - settlement runs under a transaction-scoped advisory lock: one instance at a time;
 * - key changes are announced with NOTIFY in the changing transaction (delivered on commit).
 *
 * Rows are locked in one order everywhere several are (in-flight rows, day totals, then keys; each
 * by id), so two instances' transactions wait for each other instead of deadlocking.
 */
import { postgresStoredResponses } from './stored-responses';
import { postgresProviderStats } from './provider-stats';
import { postgresDatabase } from './sql-database';
import { webhookStore } from './webhooks';
import { KeyChangeListener, keyChannel, keyStore } from './keys';
import { ledgerStore } from './ledger';
import { KeyDeltas, postgresWrites } from './postgres-writes';
import { postgresInflight } from './inflight';
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Nanos } from '../billing/money';
import { activityQuery, generationListQuery, toPositional } from './generation-query';
import { checkSchemaName, migratePostgres } from './migrate';
import type { GatewayStore } from './store';
import { type GenerationRecord, toGenerationRow } from './records';

export { keyChannel } from './keys';

export type PostgresStoreOptions = {
  /** The schema to keep the tables in (created if missing): `public` unless given. */
  schema?: string;
  /** Names this process's connections (`application_name`), for pg_stat_activity. */
  instanceId?: string;
  logger?: Logger;
  /** Connections in the pool (10 unless given). */
  poolSize?: number;
};

/** Advisory lock class of settlement (the second key is the schema's hash). */
const SETTLEMENT_LOCK = 0x6777_0002;

const INT8 = 20;
const NUMERIC = 1700;

/**
 * BIGINT (and the NUMERIC that SUM over BIGINT gives) arrive as text, so as not to lose digits
 * past 2^53. Nanos stay far below that (2^53 nanos is 9 million dollars), as do times and counts,
 * so every one is read as a number, the same way everywhere.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A transaction's connection, found by the store calls made inside it. */
type OpenTransaction = { client: pg.PoolClient; ended: boolean };

/** `application_name` is at most 63 bytes; longer is cut by the server with a notice. */
const applicationName = (name: string) => name.slice(0, 63);

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<GatewayStore> {
  const schema = checkSchemaName(options.schema ?? 'public');
  const channel = keyChannel(schema);
  if (channel.length > 63)
    throw new Error(`The schema name "${schema}" is too long for a channel.`);
  const logger = options.logger;
  const instance = options.instanceId ?? `pid-${process.pid}`;
  const connection: pg.ClientConfig = {
    connectionString: url,
    types,
    // Every connection starts in the schema, so no statement names it.
    options: `-c search_path=${schema}`,
  };
  const pool = new pg.Pool({
    ...connection,
    application_name: applicationName(`gateway ${instance}`),
    max: options.poolSize ?? 10,
  });
  // Lease renewals (`openInflight`, `checkpointInflight`) have a connection of their own: queued behind a busy
  // gateway's records and admissions in the main pool, they would come late, and an instance
  // whose renewals come late stops its own requests (billing/inflight-rows.ts).
  const leasePool = new pg.Pool({
    ...connection,
    application_name: applicationName(`gateway ${instance} leases`),
    max: 1,
    // Opened at start and kept: opening one on a loaded server can take longer than a renewal may.
    idleTimeoutMillis: 0,
  });
  // An idle connection that drops emits here; without a handler it would end the process.
  for (const connections of [pool, leasePool]) {
    connections.on('error', (error) => {
      logger?.warn({ err: error }, 'a pooled PostgreSQL connection failed');
    });
  }
  try {
    await migratePostgres(pool, schema, logger);
    await leasePool.query('SELECT 1');
  } catch (error) {
    await Promise.all([pool.end(), leasePool.end()]).catch(() => {});
    throw error;
  }

  const listener = new KeyChangeListener(
    { ...connection, application_name: applicationName(`gateway ${instance} listener`) },
    channel,
    logger,
  );

  const transactions = new AsyncLocalStorage<OpenTransaction>();

  /**
   * Runs a statement on the open transaction's connection, or on any pooled one. A `name`d one is
   * prepared once per connection: the statements every batch of records runs are planned once
   * instead of each time (their planning was most of their cost).
   */
  const query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    name?: string,
    connections = pool,
  ): Promise<pg.QueryResult<R>> => {
    const open = transactions.getStore();
    const statement = name ? { name, text, values } : { text, values };
    return open && !open.ended ? open.client.query<R>(statement) : connections.query<R>(statement);
  };

  const transaction = async <T>(work: () => Promise<T>, connections = pool): Promise<T> => {
    const joined = transactions.getStore();
    if (joined && !joined.ended) return work();
    const client = await connections.connect();
    const open: OpenTransaction = { client, ended: false };
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const result = await transactions.run(open, work);
        // A transaction in which a statement failed (caught by `work`) commits as a rollback.
        const commit = await client.query('COMMIT');
        if (commit.command !== 'COMMIT') {
          throw new Error('The transaction was rolled back: a statement in it had failed.');
        }
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      }
    } finally {
      open.ended = true;
      client.release(broken);
    }
  };

  const writes = postgresWrites(query, channel);
  const { applyDeltas, insertRecords, deleteInflight, notifyKeys } = writes;

  let closing: Promise<void> | undefined;

  const db = postgresDatabase((text, values) => query(text, values));
  const store: GatewayStore = {
    engine: 'postgres',
    responses: postgresStoredResponses(pool),
    webhooks: webhookStore(db, (work) => transaction(work)),
    providerStats: postgresProviderStats(pool),
    ...keyStore(db, { channel }),
    ...ledgerStore(db),
    ...postgresInflight(db, { query, transaction, leasePool, writes }),
    insertGenerations: async (rows) => {
      if (rows.length === 0) return [];
      return transaction(async () => {
        const deltas = new KeyDeltas();
        // The in-flight rows first: a reclaim that got there first already gave them back (and
        // wrote their closures, which these records replace); one that comes later finds them
        // gone.
        const deleted = await deleteInflight(
          rows.map((row) => row.id),
          deltas,
        );
        // A written row that is gone was closed by a reclaim: with a closure, the record replaces
        // it (capped at it); without one (nothing was checkpointed), it charges nothing.
        const lost = new Set(
          rows.filter((row) => row.inflightRowWritten && !deleted.has(row.id)).map((row) => row.id),
        );
        const { corrections, consumed } = await insertRecords(rows, deltas, false, lost);
        await applyDeltas(deltas);
        // Every instance's registry shows consumption (the balance): tell them it moved.
        await notifyKeys(consumed);
        return corrections;
      });
    },
    getGeneration: async (id) => {
      const { rows } = await query<GenerationRecord>('SELECT * FROM generations WHERE id = $1', [
        id,
      ]);
      return rows[0] ? toGenerationRow(rows[0]) : undefined;
    },
    listGenerations: async (generationQuery) => {
      const { sql, params } = generationListQuery(generationQuery);
      const { text, values } = toPositional(sql, params);
      const { rows } = await query<GenerationRecord>(text, values);
      return rows.map((record) => ({
        row: toGenerationRow(record),
        position: { createdAt: record.created_at, seq: record.seq },
      }));
    },
    activity: async (scope, fromDay, toDay) => {
      const { sql, params } = activityQuery(scope, fromDay, toDay, ' COLLATE "C"');
      const { text, values } = toPositional(sql, params);
      const { rows } = await query<{
        day: number;
        model: string;
        requests: number;
        prompt_tokens: number;
        completion_tokens: number;
        cost_nanos: number;
      }>(text, values);
      return rows.map((record) => ({
        day: record.day,
        model: record.model,
        requests: record.requests,
        promptTokens: record.prompt_tokens,
        completionTokens: record.completion_tokens,
        costNanos: record.cost_nanos,
      }));
    },
    pendingFor: async (fundingKeyId) => {
      const { rows } = await query<{ total: number }>(
        `SELECT COALESCE(SUM(cost_nanos), 0) AS total FROM generations
         WHERE NOT settled AND funding_key_id = $1`,
        [fundingKeyId],
      );
      return rows[0]!.total;
    },
    transaction,
    pendingByFundingKey: async () => {
      const { rows } = await query<{ funding_key_id: string; total: number }>(
        `SELECT funding_key_id, SUM(cost_nanos) AS total FROM generations
         WHERE NOT settled GROUP BY funding_key_id`,
      );
      return new Map(rows.map((row) => [row.funding_key_id, row.total]));
    },
    settlePending: (now) =>
      transaction(async () => {
        const { rows: lock } = await query<{ locked: boolean }>(
          'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
          [SETTLEMENT_LOCK, schema],
        );
        // Another instance is settling: what it moves, it moves; this one has nothing to do.
        if (!lock[0]!.locked) return new Map<string, Nanos>();
        const { rows } = await query<{ funding_key_id: string; total: number }>(
          // Locked in id order first, as a batch replacing closures locks them, so the two wait
          // for each other rather than deadlock.
          `WITH moved AS (
             UPDATE generations SET settled = true, settled_at = $1
             WHERE NOT settled
               AND id IN (SELECT id FROM generations WHERE NOT settled ORDER BY id FOR UPDATE)
             RETURNING funding_key_id, cost_nanos
           )
           SELECT funding_key_id, SUM(cost_nanos) AS total FROM moved GROUP BY funding_key_id`,
          [now],
        );
        const deltas = new KeyDeltas();
        for (const row of rows) {
          deltas.add(row.funding_key_id, 'consumption', row.total);
          deltas.add(row.funding_key_id, 'pending', -row.total);
        }
        await applyDeltas(deltas);
        // Every instance's registry shows consumption (the balance): tell them it moved.
        await notifyKeys(rows.map((row) => row.funding_key_id));
        return new Map(rows.map((row) => [row.funding_key_id, row.total]));
      }),
    watchKeyChanges: (onChange) => listener.watch(onChange),
    ping: async () => {
      await query('SELECT 1');
    },
    close: () => {
      listener.stop();
      closing ??= Promise.all([pool.end(), leasePool.end()]).then(() => undefined);
      return closing;
    },
  };
  return store;
}
