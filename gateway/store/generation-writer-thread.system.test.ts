import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../../testing/gateway-support';
import { startGenerationWriterThread } from './generation-writer-thread';
import { openSqliteStore, type RecordSync, writesOnThread } from './sqlite-store';
import type { GatewayStore, GenerationRow } from './store';
import { generationRow, keyRow } from './store-contract';

const folders: string[] = [];
const stores: GatewayStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

async function threadedStore(
  recordSync: RecordSync = 'full',
): Promise<{ store: GatewayStore; file: string }> {
  const folder = tempFolder();
  folders.push(folder);
  const file = path.join(folder, 'gateway.db');
  const opened = openSqliteStore(file, { autoCheckpoint: false, writerThread: true, recordSync });
  stores.push(opened);
  await opened.insertKey(keyRow());
  // As under load: other requests running, so the records go to the thread.
  const store: GatewayStore = {
    ...opened,
    insertGenerations: (rows) => opened.insertGenerations(rows, { busy: true }),
  };
  return { store, file };
}

const records = (count: number, from = 0): GenerationRow[] =>
  Array.from({ length: count }, (_, index) => generationRow({ id: `gen_${from + index}` }));

describe('the record-writing thread', () => {
  it('writes records the main connection reads back, with their day totals and pending charge', async () => {
    const { store } = await threadedStore();
    await store.insertGenerations(records(3));
    await store.insertGenerations(records(2, 3));
    // A record written twice (a retried batch) is stored and charged once.
    await store.insertGenerations(records(1, 4));

    expect((await store.getGeneration('gen_4'))?.costNanos).toBe(generationRow().costNanos);
    const [day] = await store.activity({ keyId: 'key_account' }, 0, 100_000);
    expect(day).toMatchObject({ requests: 5, promptTokens: 50, completionTokens: 100 });
    expect(await store.pendingFor('key_account')).toBe(5 * generationRow().costNanos);
  });

  it('writes on the main thread while the gateway is not busy (records not synced), and both ways add up', async () => {
    const { store } = await threadedStore('normal');
    const quiet = stores.at(-1)!;
    await Promise.all([
      store.insertGenerations(records(2)),
      quiet.insertGenerations(records(2, 2), { busy: false }),
    ]);
    await quiet.insertGenerations(records(1, 4));
    await store.insertGenerations(records(1, 5));
    const [day] = await store.activity({ keyId: 'key_account' }, 0, 100_000);
    expect(day?.requests).toBe(6);
    expect(await store.pendingFor('key_account')).toBe(6 * generationRow().costNanos);
  });

  it('leaves the keys version alone when records are written, and moves it when a key changes', async () => {
    const { store, file } = await threadedStore();
    const before = store.keysVersion!(true);
    await store.insertGenerations(records(4));
    expect(store.keysVersion!(true)).toBe(before);

    // The command line's way: another connection changes the key's limit.
    const other = new Database(file);
    other.prepare('UPDATE keys SET limit_nanos = limit_nanos + 1 WHERE id = ?').run('key_account');
    other.close();
    expect(store.keysVersion!(true)).toBe(before + 1);
  });

  it('fails one batch with the database’s reason and goes on writing the next', async () => {
    const { store } = await threadedStore();
    const broken = { ...generationRow({ id: 'gen_bad' }), model: null } as unknown as GenerationRow;
    await expect(store.insertGenerations([broken])).rejects.toThrow(
      /Writing generation records failed: NOT NULL constraint failed: generations\.model/,
    );
    await store.insertGenerations(records(1));
    expect(await store.getGeneration('gen_0')).toBeDefined();
    expect(await store.getGeneration('gen_bad')).toBeUndefined();
  });

  it.each([
    ['FULL', 2],
    ['NORMAL', 1],
  ] as const)(
    'commits with synchronous = %s on its own connection when asked to',
    async (level, expected) => {
      const folder = tempFolder();
      folders.push(folder);
      const file = path.join(folder, 'gateway.db');
      openSqliteStore(file, { autoCheckpoint: false }).close();
      const here = {
        insertGenerations: () => Promise.reject(new Error('not here')),
        settle: () => Promise.reject(new Error('not here')),
      };
      const thread = startGenerationWriterThread(file, here, undefined, level);
      expect(await thread.synchronousLevel()).toBe(expected);
      await thread.close();
    },
  );

  it('sends every record to the thread when records are synced, so no sync holds the event loop', () => {
    const quiet = { running: true, insideTransaction: false, busy: false, threadIdle: true };
    expect(writesOnThread({ ...quiet, recordSync: 'full' })).toBe(true);
    expect(writesOnThread({ ...quiet, recordSync: 'normal' })).toBe(false);
    expect(writesOnThread({ ...quiet, busy: true, recordSync: 'normal' })).toBe(true);
    expect(writesOnThread({ ...quiet, threadIdle: false, recordSync: 'normal' })).toBe(true);
    // Never from inside a transaction of the main connection, nor once the thread has failed.
    expect(writesOnThread({ ...quiet, insideTransaction: true, recordSync: 'full' })).toBe(false);
    expect(writesOnThread({ ...quiet, running: false, recordSync: 'full' })).toBe(false);
  });

  it('hands its batches to the main thread when it cannot run, and says so once', async () => {
    const written: string[] = [];
    const failures: Error[] = [];
    // No database file: the thread fails to open it and ends.
    const folder = tempFolder();
    folders.push(folder);
    const thread = startGenerationWriterThread(
      path.join(folder, 'missing.db'),
      {
        insertGenerations: async (rows) => {
          written.push(...rows.map((row) => row.id));
          return [];
        },
        settle: async (now) => new Map([['key_account', now]]),
      },
      (error) => failures.push(error),
    );
    await Promise.all([thread.insert(records(2)), thread.insert(records(1, 2))]);
    await thread.insert(records(1, 3));
    expect(written).toEqual(['gen_0', 'gen_1', 'gen_2', 'gen_3']);
    expect(await thread.settle(42)).toEqual(new Map([['key_account', 42]]));
    expect(thread.running).toBe(false);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toMatch(
      /cannot open .*missing\.db: (unable to open database|directory does not exist)/,
    );
    await thread.close();
  });

  it('takes over the work it held when it failed: each caller gets the result of the work done here', async () => {
    const folder = tempFolder();
    folders.push(folder);
    const failures: Error[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const thread = startGenerationWriterThread(
      path.join(folder, 'missing.db'),
      {
        // The store's own gate (an open transaction, a busy file) is awaited before the write.
        insertGenerations: async () => {
          await gate;
          return [];
        },
        settle: async (now) => new Map([['key_account', now]]),
      },
      (error) => failures.push(error),
    );
    // Both are sent before the thread has even tried to open its file.
    let inserted = false;
    const insert = thread.insert(records(1)).then(() => (inserted = true));
    const settled = thread.settle(7);
    while (failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await settled).toEqual(new Map([['key_account', 7]]));
    expect(inserted).toBe(false);
    openGate();
    await insert;
    expect(inserted).toBe(true);
    await thread.close();
  });

  it('settles on the thread: what moved comes back, and the main connection sees it', async () => {
    const { store } = await threadedStore();
    await store.insertGenerations(records(3));
    const moved = await store.settlePending(1_700_000_500);
    expect(moved).toEqual(new Map([['key_account', 3 * generationRow().costNanos]]));
    expect(await store.pendingFor('key_account')).toBe(0);
    expect((await store.getKey('key_account'))?.consumptionNanos).toBe(
      3 * generationRow().costNanos,
    );
    expect((await store.getGeneration('gen_2'))?.settledAt).toBe(1_700_000_500);
  });

  it('writes every batch sent before it is closed', async () => {
    const { store, file } = await threadedStore();
    const sent = Array.from({ length: 20 }, (_, index) =>
      store.insertGenerations(records(1, index)),
    );
    await store.close();
    await Promise.all(sent);
    const reader = new Database(file, { readonly: true });
    const count = reader.prepare('SELECT COUNT(*) FROM generations').pluck().get();
    reader.close();
    expect(count).toBe(20);
  });

  it('runs from the sources under tsx too (whose loader wraps functions in a helper of its own)', async () => {
    const folder = tempFolder();
    folders.push(folder);
    const store = path.join(import.meta.dirname, 'sqlite-store.ts');
    const fixtures = path.join(import.meta.dirname, 'store-contract.ts');
    const script = `
      import path from 'node:path';
      import { openSqliteStore } from ${JSON.stringify(store)};
      import { generationRow, keyRow } from ${JSON.stringify(fixtures)};
      const failures = [];
      const opened = openSqliteStore(path.join(${JSON.stringify(folder)}, 'g.db'), {
        autoCheckpoint: false, writerThread: true, onWriterFailure: (error) => failures.push(error.message),
      });
      await opened.insertKey(keyRow());
      // Busy, so the batch goes to the thread; its own failure message says where it was written.
      await opened.insertGenerations([{ ...generationRow(), model: null }], { busy: true }).catch(
        (error) => failures.push(error.message),
      );
      await opened.close();
      console.log(JSON.stringify(failures));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: path.resolve(import.meta.dirname, '../..') },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual([
      'Writing generation records failed: NOT NULL constraint failed: generations.model',
    ]);
  });
});
