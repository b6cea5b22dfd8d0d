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
import { presetStore } from './presets';
import { batchStore } from './batches';
import { KeyChangeListener, keyChannel, keyStore } from './keys';
import { ledgerStore } from './ledger';
import { postgresWrites } from './postgres-writes';
import { postgresInflight } from './inflight';
import { generationStore, postgresInsertGenerations } from './generations';
import { postgresSettlePending, settlementStore } from './settlement';
import { DEFAULT_LEASE_MS } from '../config';
import { withPooledConnection } from './pooled-connection';
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Logger } from 'pino';
import { checkSchemaName, migratePostgres } from './migrate';
import type { GatewayStore } from './store';

export { keyChannel } from './keys';

export type PostgresStoreOptions = {
  /** The schema to keep the tables in (created if missing): `public` unless given. */
  schema?: string;
  /** Names this process's connections (`application_name`), for pg_stat_activity. */
  instanceId?: string;
  logger?: Logger;
  /**
   * Connections in the main pool (9 unless given); with the records' and the leases' own, and the
   * key listener's, an instance opens 12 by default, as it did with 10 before records had theirs.
   */
  poolSize?: number;
  /**
   * How long the server lets one of this process's connections sit in an open transaction without
   * a word before it ends the session: the gateway's lease (`DEFAULT_LEASE_MS` unless given). See
   * `postgresConnection`.
   */
  leaseMs?: number;
};

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

/**
 * The settings of every connection the store opens. An instance cut off from the server mid-
 * transaction keeps its row locks until the server ends its session; the others skip those
 * in-flight rows or wait on those keys. Ended after a lease of silence, the locks are gone by the
 * time the instance's leases end, and its rows are closed as they would be after a crash.
 */
function postgresConnection(url: string, schema: string, leaseMs: number): pg.ClientConfig {
  return {
    connectionString: url,
    types,
    // Every connection starts in the schema, so no statement names it.
    options: `-c search_path=${schema}`,
    idle_in_transaction_session_timeout: leaseMs,
  };
}

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
  const connection = postgresConnection(url, schema, options.leaseMs ?? DEFAULT_LEASE_MS);
  const pool = new pg.Pool({
    ...connection,
    application_name: applicationName(`gateway ${instance}`),
    max: options.poolSize ?? 9,
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
  // Requests' records (the one statement each answer waits for) have a connection of their own,
  // kept open: behind settlement, reclaims or webhook sends in the main pool, answers would wait
  // for background work. The records are written a batch at a time (billing/group-commit.ts).
  const recordPool = new pg.Pool({
    ...connection,
    application_name: applicationName(`gateway ${instance} records`),
    max: 1,
    idleTimeoutMillis: 0,
  });
  // An idle connection that drops emits here; without a handler it would end the process.
  for (const connections of [pool, leasePool, recordPool]) {
    connections.on('error', (error) => {
      logger?.warn({ err: error }, 'a pooled PostgreSQL connection failed');
    });
  }
  try {
    await migratePostgres(pool, schema, logger);
    await Promise.all([leasePool.query('SELECT 1'), recordPool.query('SELECT 1')]);
  } catch (error) {
    await Promise.all([pool.end(), leasePool.end(), recordPool.end()]).catch(() => {});
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
    return withPooledConnection(connections, async (client, drop) => {
      const open: OpenTransaction = { client, ended: false };
      try {
        await client.query('BEGIN');
        const result = await transactions.run(open, work);
        // A transaction in which a statement failed (caught by `work`) commits as a rollback.
        const commit = await client.query('COMMIT');
        if (commit.command !== 'COMMIT') {
          throw new Error('The transaction was rolled back: a statement in it had failed.');
        }
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(drop);
        throw error;
      } finally {
        open.ended = true;
      }
    });
  };

  const writes = postgresWrites(query, channel);

  let closing: Promise<void> | undefined;

  const db = postgresDatabase((text, values) => query(text, values));
  const store: GatewayStore = {
    engine: 'postgres',
    shared: true,
    responses: postgresStoredResponses(pool),
    webhooks: webhookStore(db, (work) => transaction(work)),
    presets: presetStore(db, (work) => transaction(work)),
    batches: batchStore(db, (work) => transaction(work)),
    providerStats: postgresProviderStats(pool),
    ...keyStore(db, { channel }),
    ...ledgerStore(db),
    ...postgresInflight(db, { query, transaction, leasePool, writes }),
    ...generationStore(db, postgresInsertGenerations(transaction, writes, recordPool)),
    ...settlementStore(db, postgresSettlePending(query, transaction, writes, schema)),
    transaction,
    watchKeyChanges: (onChange) => listener.watch(onChange),
    ping: async () => {
      await query('SELECT 1');
    },
    close: () => {
      listener.stop();
      closing ??= Promise.all([pool.end(), leasePool.end(), recordPool.end()]).then(
        () => undefined,
      );
      return closing;
    },
  };
  return store;
}
