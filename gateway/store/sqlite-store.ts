/**
 * The SQLite store of the embedded gateway, in WAL mode; records synced with their commit unless
 * GATEWAY_SQLITE_SYNC is `normal`, the main connection at `synchronous = NORMAL`, the schema from
 * `migrations/sqlite` (migrate.ts). Why: docs/decisions/0002-sqlite-with-a-record-writing-thread.md
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sqliteDatabase } from './sql-database';
import { sqliteStoredResponses } from './stored-responses';
import { webhookStore } from './webhooks';
import { presetStore } from './presets';
import { batchStore } from './batches';
import { keyStore, sqliteKeyChanges } from './keys';
import { ledgerStore } from './ledger';
import { sqliteInflight } from './inflight';
import { generationStore } from './generations';
import { settlementStore } from './settlement';
import { sqliteProviderStats } from './provider-stats';
import { createGenerationWrites, JOURNAL_SIZE_LIMIT } from './generation-writes';
import { startGenerationWriterThread } from './generation-writer-thread';
import { startCheckpointWorker } from './checkpoint-worker';
import { migrateSqlite } from './migrate';
import type { GatewayStore } from './store';

export { generationListQuery } from './generation-query';

/** How long a statement waits for another connection's lock before failing, as `busy_timeout`. */
const LOCK_WAIT_MS = 5_000;

const isBusy = (error: unknown) => {
  const code = (error as { code?: string }).code ?? '';
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
};

/** A short pause, longer the longer the lock has been held (1 ms, then up to 20 ms). */
const pauseForLock = (waitedMs: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.min(20, 1 + waitedMs / 10)));

/** Runs a start-up step again while SQLite says the file is busy, for up to about 5 s. */
function retryWhileBusy<T>(step: () => T): T {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return step();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 250) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

export type RecordSync = 'full' | 'normal';

/**
 * Where a write of records (or a settlement) runs. On the thread while it runs, never inside a
 * transaction of the main connection (the write is part of it, and the thread would only wait for
 * its lock). With records synced (`full`) always there, since the sync would hold the event loop
 * (a fraction of a millisecond usually, tens of milliseconds at worst on this kind of disk). With
 * `normal`, a quiet gateway writes on the main thread: the trip to the thread and back (about
 * 0.2 ms) would only delay the answer, and the idle thread holds no lock this one could wait for.
 */
export function writesOnThread(state: {
  running: boolean;
  insideTransaction: boolean;
  busy: boolean;
  threadIdle: boolean;
  recordSync: RecordSync;
}): boolean {
  if (!state.running || state.insideTransaction) return false;
  return state.recordSync === 'full' || state.busy || !state.threadIdle;
}

export function openSqliteStore(
  databasePath: string,
  options: {
    /**
     * SQLite checkpoints the write-ahead log inside whichever commit fills it, which puts a
     * burst of page copies on some unlucky request. The gateway turns that off and checkpoints
     * from a thread of its own instead (`startCheckpoints`); the command line keeps the default.
     */
    autoCheckpoint?: boolean;
    /**
     * Writes generation records from a thread of their own (generation-writer-thread.ts), off the
     * event loop that answers requests. The gateway turns it on; the command line, which writes
     * no records, and an in-memory database (which one connection alone sees) do not.
     */
    writerThread?: boolean;
    /** Told when the record-writing thread failed and the main thread took its work over. */
    onWriterFailure?: (error: Error) => void;
    /**
     * `full` (default): a record's commit is synced to disk before its answer ends; `normal`: it
     * is in the operating system's cache (safe from a killed process, not from a power cut).
     */
    recordSync?: RecordSync;
  } = {},
): GatewayStore {
  if (databasePath !== ':memory:') fs.mkdirSync(path.dirname(databasePath), { recursive: true });
  const database = new Database(databasePath);
  // The command line and a running gateway share the file: wait for the other's lock briefly.
  database.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
  // Turning a new file to WAL takes its lock without waiting for a busy one (SQLite returns BUSY
  // at once where waiting could deadlock), so processes opening a new file together retry.
  retryWhileBusy(() => database.pragma('journal_mode = WAL'));
  if (options.autoCheckpoint === false) database.pragma('wal_autocheckpoint = 0');
  database.pragma('synchronous = NORMAL');
  // A log that a burst made long is cut back when it starts over, not kept at its peak on disk.
  database.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  database.pragma('foreign_keys = ON');
  migrateSqlite(database);
  // With a record-writing thread there are two connections that write, and SQLite's busy
  // handler waits for the other's lock by sleeping: on the main thread that would hold every
  // request. So the main connection never sleeps on a lock; `run` tries again a little later.
  const waitsAsynchronously = options.writerThread === true && databasePath !== ':memory:';
  if (waitsAsynchronously) database.pragma('busy_timeout = 0');

  const writes = createGenerationWrites(database);
  const recordSync = options.recordSync ?? 'full';
  const writerThread =
    options.writerThread && databasePath !== ':memory:'
      ? startGenerationWriterThread(
          databasePath,
          {
            // `run` is defined below; these are called only later, once a thread has failed.
            insertGenerations: (rows) => run(() => writes.insertGenerations(rows)),
            settle: (now) => run(() => writes.settle(now)),
          },
          (error) => {
            // The main connection writes the records from now on, so it syncs them as the thread did.
            if (recordSync === 'full') database.pragma('synchronous = FULL');
            options.onWriterFailure?.(error);
          },
          recordSync === 'full' ? 'FULL' : 'NORMAL',
        )
      : null;
  // Without a thread (the command line, an in-memory database) the main connection writes them.
  if (!writerThread && recordSync === 'full') database.pragma('synchronous = FULL');

  // A transaction's store calls find it through async context; calls from elsewhere wait until
  // it ends, so they never join (or are rolled back with) a change they are no part of.
  // (A task the work started that outlives it is outside it again once it ends.)
  const inTransaction = new AsyncLocalStorage<{ ended: boolean }>();
  const joined = () => inTransaction.getStore()?.ended === false;
  let open: Promise<unknown> | null = null;
  /** Whether a write goes to the record-writing thread now (see `writesOnThread`). */
  const onThread = (busy: boolean) =>
    writesOnThread({
      running: writerThread?.running === true,
      insideTransaction: joined(),
      busy,
      threadIdle: writerThread?.idle ?? true,
      recordSync,
    });
  const run = async <T>(work: () => T): Promise<T> => {
    if (joined()) return work();
    for (const started = Date.now(); ;) {
      while (open !== null) await open.catch(() => {});
      try {
        return work();
      } catch (error) {
        if (!waitsAsynchronously || !isBusy(error) || Date.now() - started > LOCK_WAIT_MS) {
          throw error;
        }
        await pauseForLock(Date.now() - started);
      }
    }
  };

  const db = sqliteDatabase(database, run);
  const store: GatewayStore = {
    engine: 'sqlite',
    shared: false,
    responses: sqliteStoredResponses(database, run),
    webhooks: webhookStore(db, (work) => store.transaction(work)),
    presets: presetStore(db, (work) => store.transaction(work)),
    batches: batchStore(db, (work) => store.transaction(work)),
    providerStats: sqliteProviderStats(database, run),
    ...keyStore(db),
    ...ledgerStore(db),
    ...sqliteKeyChanges(database, isBusy),
    ...sqliteInflight(database, db, run, writes),
    // Records and settlement are written on the record-writing thread when it runs.
    ...generationStore(db, async (rows, insertOptions) =>
      onThread(insertOptions?.busy === true)
        ? await run(() => writerThread!.insert(rows))
        : await run(() => writes.insertGenerations(rows)),
    ),
    ...settlementStore(db, async (now) => {
      if (onThread(true)) return run(() => writerThread!.settle(now));
      return run(() => writes.settle(now));
    }),
    startCheckpoints: (intervalMs, logger) =>
      databasePath === ':memory:' ? null : startCheckpointWorker(databasePath, intervalMs, logger),
    transaction: async (work) => {
      if (joined()) return work();
      // BEGIN and marking the transaction open happen in one synchronous step, so no other
      // call slips into it; a busy lock is waited for by `run`, before that step.
      const { done } = await run(() => {
        database.exec('BEGIN IMMEDIATE');
        const marker = { ended: false };
        const started = inTransaction.run(marker, async () => {
          try {
            const result = await work();
            database.exec('COMMIT');
            return result;
          } catch (error) {
            if (database.inTransaction) database.exec('ROLLBACK');
            throw error;
          } finally {
            marker.ended = true;
          }
        });
        open = started;
        return { done: started };
      });
      try {
        return await done;
      } finally {
        if (open === done) open = null;
      }
    },
    ping: () => run(() => void database.prepare('SELECT 1').get()),
    close: async () => {
      while (open !== null) await open.catch(() => {});
      await writerThread?.close();
      database.close();
    },
  };
  return store;
}
