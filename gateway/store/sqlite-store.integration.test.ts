import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { balanceSchema, generationRecordSchema } from '../../contract/gateway';
import {
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  tempFolder,
  testConfig,
  toNanos,
} from '../../testing/gateway-support';
import { createGateway } from '../app';
import { MemoryBudget } from '../billing/memory-budget';
import { createLogger } from '../logger';
import { startGateway } from '../index';
import { migrateSqlite, readMigrations } from './migrate';
import { columnTypes, generationFieldList } from '../../contract/generation-record';
import { openSqliteStore } from './sqlite-store';
import { describeStoreContract, keyRow, type StoreFactory } from './store-contract';
import { describeWebhookStoreContract } from './webhook-store-contract';
import { describeKeyPeriodStoreContract } from './key-period-store-contract';
import { describePresetStoreContract } from './preset-store-contract';
import { describeBatchStoreContract } from './batch-store-contract';
import type { GatewayStore } from './store';

/** The migrations in this checkout bring a database to this user_version. */
const LATEST = readMigrations('sqlite').length - 1;

/**
 * A database as a gateway of an earlier version left it: the files up to `userVersion + 1`
 * applied (0001 is the schema before versioning; user_version counts the files after it).
 */
function databaseAt(file: string, userVersion: number): Database.Database {
  const database = new Database(file);
  for (const migration of readMigrations('sqlite').slice(0, userVersion + 1)) {
    database.exec(migration.sql);
  }
  database.pragma(`user_version = ${userVersion}`);
  return database;
}

/**
 * The store contract over a new file per test, opened with `options`; `openAnother` is another
 * store over the same file, opened as the command line opens it.
 */
function describeContractOnFiles(
  options: Parameters<typeof openSqliteStore>[1] = {},
  insertOptions: { busy?: boolean } = {},
): void {
  const folders: string[] = [];
  const opened: GatewayStore[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });
  let file = '';
  const factory: StoreFactory = {
    open: async () => {
      const folder = tempFolder();
      folders.push(folder);
      file = path.join(folder, 'gateway.db');
      const store = openSqliteStore(file, options);
      opened.push(store);
      return {
        ...store,
        insertGenerations: (rows) => store.insertGenerations(rows, insertOptions),
      };
    },
    openAnother: async () => openSqliteStore(file),
  };
  describeStoreContract(factory);
  describeWebhookStoreContract(factory);
  describeKeyPeriodStoreContract(factory);
  describePresetStoreContract(factory);
  describeBatchStoreContract(factory);
}

describe('the SQLite store', () => {
  describeContractOnFiles();

  it('keeps keys and generation records across a close and a reopen of the same file', async () => {
    const folder = tempFolder();
    const config = testConfig({ settleIntervalMs: 600_000 }, folder);
    const first = await startGateway(config, { logger: createLogger('silent') });
    const { key, id } = await first.gateway.admin.create({ kind: 'account', limitUsd: 2 });
    const response = await postJson(`${first.url}/v1/chat/completions`, chatBody(), { key });
    expect(response.status).toBe(200);
    const ray = response.headers.get('cf-ray')!;
    const cost = toNanos(((await response.json()) as { usage: { cost: number } }).usage.cost);
    // Closing settles what is pending, so nothing is lost between runs.
    await first.close();

    const second = await startGateway(config, { logger: createLogger('silent') });
    try {
      const record = await getWithKey(`${second.url}/v1/generation?id=${ray}`, key);
      expect(record.status).toBe(200);
      expect(generationRecordSchema.parse(await record.json())).toMatchObject({
        id: ray,
        settlement: 'settled',
      });
      const balance = balanceSchema.parse(
        await (await getWithKey(`${second.url}/v1/balance`, key)).json(),
      );
      expect(toNanos(balance.consumption_usd)).toBe(cost);
      expect((await second.gateway.admin.show(id)).kind).toBe('account');
    } finally {
      await second.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('rebuilds pending charges from unsettled records after a crash', async () => {
    const folder = tempFolder();
    const config = testConfig({ settleIntervalMs: 600_000 }, folder);
    const gateway = await startTestGateway({
      settleIntervalMs: 600_000,
      databasePath: config.databasePath,
    });
    const { key, id } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key });
    const cost = toNanos(((await response.json()) as { usage: { cost: number } }).usage.cost);
    // A second gateway on the same file (as after a crash, before anything settled) sees it pending.
    const reopened = await createGateway(config, { logger: createLogger('silent') });
    expect(reopened.parts.budget).toBeInstanceOf(MemoryBudget);
    expect((reopened.parts.budget as MemoryBudget).pendingFor(id)).toBe(cost);
    expect(await reopened.parts.store.fundingFigures(id)).toMatchObject({ pendingNanos: cost });
    reopened.settlement.stop();
    await reopened.close();
    await gateway.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('has a column of its definition’s type for every field of the generation record', () => {
    const database = new Database(':memory:');
    migrateSqlite(database);
    const columns = database.pragma('table_info(generations)') as Array<{
      name: string;
      type: string;
    }>;
    const types = new Map(columns.map((column) => [column.name, column.type]));
    for (const [, spec] of generationFieldList) {
      expect({ column: spec.column, type: types.get(spec.column) }).toEqual({
        column: spec.column,
        type: columnTypes[spec.kind].sqlite,
      });
    }
    database.close();
  });

  it('runs in WAL mode', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'nested', 'gateway.db');
    const store = openSqliteStore(file);
    await store.close();
    const database = new Database(file, { readonly: true });
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('changes its keys version, from the next turn of the event loop, when another connection commits', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const gatewaySide = openSqliteStore(file);
    const cliSide = openSqliteStore(file);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const before = gatewaySide.keysVersion!();
    await cliSide.insertKey(keyRow({ id: 'key_1', name: 'one' }));
    // Read once per turn: requests read in this turn were sent before the commit.
    expect(gatewaySide.keysVersion!()).toBe(before);
    await nextTurn();
    expect(gatewaySide.keysVersion!()).not.toBe(before);
    expect((await gatewaySide.getKey('key_1'))?.name).toBe('one');
    await gatewaySide.updateKey('key_1', { disabled: true, expiresAt: 99 });
    expect(await cliSide.getKey('key_1')).toMatchObject({ disabled: true, expiresAt: 99 });
    await gatewaySide.close();
    await cliSide.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('brings a database from before the key console up to date, its history included', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    // The first migration's schema, with keys and records written by that version.
    const old = databaseAt(file, 1);
    old.exec(`
      INSERT INTO keys (id, kind, parent_id, name, digest, masked, limit_nanos, created_at) VALUES
        ('key_account', 'account', NULL, 'a', 'v1$a', 'sk-…', 10000000000, 1),
        ('key_child', 'allocated_child', 'key_account', 'c', 'v1$c', 'sk-…', 2000000000, 1),
        ('key_gone', 'allocated_child', 'key_account', 'g', 'v1$g', 'sk-…', 5000000000, 1),
        ('key_shared', 'shared_child', 'key_account', 's', 'v1$s', 'sk-…', 0, 1);
      UPDATE keys SET revoked_at = 5 WHERE id = 'key_gone';
    `);
    const insert = old.prepare(
      `INSERT INTO generations (id, key_id, funding_key_id, model, provider, form, streamed,
         prompt_tokens, completion_tokens, cost_nanos, outcome, created_at, latency_ms)
       VALUES (?, ?, ?, 'sim/chat-standard', 'simulated', 'chat_completions', 0, 10, 2, ?, 'completed', ?, 1)`,
    );
    insert.run('0000000000000001-OLD', 'key_shared', 'key_account', 5, 86_400 * 3 + 10);
    insert.run('0000000000000002-OLD', 'key_account', 'key_account', 7, 86_400 * 3 + 20);
    insert.run('0000000000000003-OLD', 'key_child', 'key_child', 11, 86_400 * 4);
    old.close();

    const store = openSqliteStore(file);
    const listed = await store.listGenerations({ accountId: 'key_account', limit: 10 });
    expect(listed.map(({ row }) => row.id)).toEqual([
      '0000000000000003-OLD',
      '0000000000000002-OLD',
      '0000000000000001-OLD',
    ]);
    expect(listed.map(({ position }) => position.seq)).toEqual([3, 2, 1]);
    expect(await store.listGenerations({ keyId: 'key_shared', limit: 10 })).toHaveLength(1);
    expect(await store.activity({ accountId: 'key_account' }, 3, 4)).toEqual([
      {
        day: 3,
        model: 'sim/chat-standard',
        requests: 2,
        promptTokens: 20,
        completionTokens: 4,
        costNanos: 12,
      },
      {
        day: 4,
        model: 'sim/chat-standard',
        requests: 1,
        promptTokens: 10,
        completionTokens: 2,
        costNanos: 11,
      },
    ]);
    // The ledger opens with what the balance showed: the live allocated child counted as given.
    expect(await store.ledgerTotals('key_account')).toEqual({
      rechargeNanos: 12_000_000_000,
      creditNanos: 0,
      allocatedNanos: 2_000_000_000,
    });
    expect((await store.ledgerTotals('key_child')).allocatedNanos).toBe(2_000_000_000);
    // The unsettled records are the funding keys' pending totals.
    expect(await store.fundingFigures('key_account')).toMatchObject({ pendingNanos: 12 });
    expect(await store.fundingFigures('key_child')).toMatchObject({ pendingNanos: 11 });
    // New records continue the sequence.
    const next = { ...listed[0]!.row, id: '0000000000000004-NEW', createdAt: 86_400 * 4 };
    await store.insertGenerations([next]);
    expect((await store.listGenerations({ keyId: 'key_child', limit: 1 }))[0]!.position.seq).toBe(
      4,
    );
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("applies only the files a released version's database lacks", async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    // The last release before rate limits counted 3 migrations after the base schema.
    const old = databaseAt(file, 3);
    old.exec(`
      INSERT INTO keys (id, kind, parent_id, name, digest, masked, limit_nanos, consumption_nanos,
          created_at)
        VALUES ('key_account', 'account', NULL, 'a', 'v1$a', 'sk-…', 10000000000, 1000, 1);
      INSERT INTO generations (id, key_id, funding_key_id, model, provider, form, streamed,
          prompt_tokens, completion_tokens, cost_nanos, outcome, settled, created_at, latency_ms,
          account_id, seq)
        VALUES ('g1', 'key_account', 'key_account', 'm', 'p', 'f', 0, 1, 1, 40, 'completed', 0, 1, 1, 'key_account', 1),
               ('g2', 'key_account', 'key_account', 'm', 'p', 'f', 0, 1, 1, 2, 'completed', 0, 1, 1, 'key_account', 2),
               ('g3', 'key_account', 'key_account', 'm', 'p', 'f', 0, 1, 1, 1000, 'completed', 1, 1, 1, 'key_account', 3);
      -- Written by hand to tell whether 0004 ran again (it would add a second opening entry).
      INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos,
          limit_nanos, actor, created_at)
        VALUES ('key_account', 'opening', 10000000000, 0, 0, 10000000000, 'system', 1);
    `);
    old.close();

    const store = openSqliteStore(file);
    expect(await store.getKey('key_account')).toMatchObject({ rpmLimit: null, tpmLimit: null });
    expect(await store.fundingFigures('key_account')).toEqual({
      limitNanos: 10_000_000_000,
      graceNanos: 0,
      consumptionNanos: 1000,
      pendingNanos: 42,
      reservedNanos: 0,
      periodBaseNanos: 0,
    });
    expect((await store.ledgerTotals('key_account')).rechargeNanos).toBe(10_000_000_000);
    expect(await store.listInflight()).toEqual([]);
    await store.close();
    const reopened = new Database(file, { readonly: true });
    expect(reopened.pragma('user_version', { simple: true })).toBe(LATEST);
    reopened.close();
    // Opening again changes nothing.
    const again = openSqliteStore(file);
    expect((await again.fundingFigures('key_account'))?.pendingNanos).toBe(42);
    await again.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
});

// The gateway's own configuration: generation records written from their own thread, on a
// connection of their own, must keep every promise the store makes.
describe('the SQLite store with its record-writing thread', () => {
  // As under load: other requests running, so records go to the thread.
  describeContractOnFiles({ autoCheckpoint: false, writerThread: true }, { busy: true });
});

describe('the SQLite store beside its record-writing thread', () => {
  /** Another thread that holds the file's write lock until told to let go. */
  async function holdWriteLock(file: string) {
    const holder = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.driver);
       const database = new Database(workerData.file);
       database.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('locked');
       parentPort.once('message', () => { database.exec('COMMIT'); database.close(); parentPort.close(); });`,
      {
        eval: true,
        workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
      },
    );
    await new Promise((resolve) => holder.once('message', resolve));
    return {
      release: () => holder.postMessage('release'),
      ended: new Promise((resolve) => holder.once('exit', resolve)),
    };
  }

  it('waits for another connection’s lock without holding the event loop', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const store = openSqliteStore(file, { autoCheckpoint: false, writerThread: true });
    try {
      await store.insertKey(keyRow());
      for (const change of [
        () => store.updateKey('key_account', { name: 'renamed' }),
        () => store.transaction(() => store.updateKey('key_account', { name: 'in a transaction' })),
      ]) {
        const lock = await holdWriteLock(file);
        const changed = change();
        // Runs only if the change waits for the lock asynchronously; it is what lets go of it.
        let ranMeanwhile = false;
        setImmediate(() => {
          ranMeanwhile = true;
          lock.release();
        });
        await changed;
        await lock.ended;
        expect(ranMeanwhile).toBe(true);
      }
      expect((await store.getKey('key_account'))?.name).toBe('in a transaction');
    } finally {
      await store.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
