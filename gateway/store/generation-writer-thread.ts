/**
 * Writes the gateway's generation records, and settles them, from a worker thread with a SQLite
 * connection of its own, running generation-writes.ts's function; the main thread takes over if
 * it fails. Why: docs/decisions/0002-sqlite-with-a-record-writing-thread.md
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { createGenerationWrites, JOURNAL_SIZE_LIMIT } from './generation-writes';
import type { Nanos } from '../billing/money';
import type { GenerationRow, RecordCorrection } from './store';

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// A loader that keeps function names (tsx, with esbuild's keepNames) wraps functions in a
// helper that only exists in its own module; here it is the identity it amounts to.
const __name = (target) => target;
const createGenerationWrites = (${createGenerationWrites.toString()});
let database;
let writes;
try {
  database = new Database(workerData.path, { fileMustExist: true });
  // Records are synced to disk with their commit (FULL) unless the operator chose speed over a
  // power cut (NORMAL: on disk for a killed process, in the OS's cache for a lost machine). The
  // sync's wait is this thread's alone. Checkpoints are the checkpoint thread's. Waiting for
  // another's lock blocks only this thread, so it waits long: a record that fails fails an
  // answered request.
  database.pragma('busy_timeout = 30000');
  database.pragma('synchronous = ' + workerData.synchronous);
  database.pragma('wal_autocheckpoint = 0');
  // The log is cut back by whichever connection starts it over, with its own limit.
  database.pragma('journal_size_limit = ' + workerData.journalSizeLimit);
  database.pragma('foreign_keys = ON');
  writes = createGenerationWrites(database);
} catch (error) {
  // SQLite's own error type loses its message on the way to the main thread; a plain one keeps it.
  throw new Error('cannot open ' + workerData.path + ': ' + (error && error.message));
}
parentPort.on('message', (message) => {
  if (message.close) {
    database.close();
    parentPort.close();
    return;
  }
  try {
    if (message.describe) {
      parentPort.postMessage({ id: message.id, synchronous: database.pragma('synchronous', { simple: true }) });
    } else if (message.settleAt !== undefined) {
      parentPort.postMessage({ id: message.id, moved: [...writes.settle(message.settleAt)] });
    } else {
      parentPort.postMessage({ id: message.id, corrections: writes.insertGenerations(message.rows) });
    }
  } catch (error) {
    parentPort.postMessage({
      id: message.id,
      error: { message: String(error && error.message), code: error && error.code },
    });
  }
});
`;

export type GenerationWriterThread = {
  /**
   * Writes the records in one transaction on the thread; settles once committed, or failed, with
   * what replacing records closed by lease moved (GenerationWrites.insertGenerations).
   */
  insert(rows: GenerationRow[]): Promise<RecordCorrection[]>;
  /** Settles every unsettled record on the thread (GenerationWrites.settle); what moved. */
  settle(now: number): Promise<Map<string, Nanos>>;
  /** SQLite's `synchronous` level on the thread's connection (2 is FULL, 1 NORMAL), as it reads it. */
  synchronousLevel(): Promise<number>;
  /** Waits for the batches sent, then ends the thread and its connection. */
  close(): Promise<void>;
  /** Whether the thread is still the one writing (false once it failed and the main thread took over). */
  readonly running: boolean;
  /** Whether the thread holds no work now (so a write on the main thread would not wait for it). */
  readonly idle: boolean;
};

/** One piece of work sent to the thread: how to do it here instead, and its promise. */
type Waiting = {
  /** The same work on the calling thread, its result as the caller expects it. */
  here(): Promise<unknown>;
  /** The thread's answer, as the caller expects it. */
  fromAnswer(answer: Answer): unknown;
  resolve(result: unknown): void;
  reject(error: Error): void;
};

/** What the worker answers for one piece of work. */
type Answer = {
  id: number;
  moved?: Array<[string, Nanos]>;
  corrections?: RecordCorrection[];
  synchronous?: number;
  error?: { message: string; code?: string };
};

/** The writes on the calling thread's connection, each awaited: the fallback once the worker has failed. */
export type WritesHere = {
  insertGenerations(rows: GenerationRow[]): Promise<RecordCorrection[]>;
  settle(now: number): Promise<Map<string, Nanos>>;
};

export function startGenerationWriterThread(
  databasePath: string,
  /**
   * The same writes on the calling thread's connection. They go through the store's own gate
   * (`run`), so work taken over from a failed thread neither joins another caller's open
   * transaction nor fails on a lock the thread held as it died.
   */
  here: WritesHere,
  onFailure: (error: Error) => void = () => undefined,
  /** FULL syncs each batch's commit to disk; NORMAL leaves it in the OS's cache (see sqlite-store.ts). */
  synchronous: 'FULL' | 'NORMAL' = 'FULL',
): GenerationWriterThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | null = new Worker(workerSource, {
    eval: true,
    // Plain CommonJS whatever flags started this process (`--input-type=module` would make the
    // source an ES module, where `require` does not exist).
    execArgv: [],
    workerData: { path: databasePath, driver, journalSizeLimit: JOURNAL_SIZE_LIMIT, synchronous },
    // What it holds lives for one batch. V8's default young generation (two 16 MB halves) grew
    // to 40 MB of the gateway's memory under load; a small one is collected more often, each
    // time in a fraction of a millisecond, and none of it on the event loop.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  const waiting = new Map<number, Waiting>();
  let nextId = 0;
  let closing: Promise<void> | null = null;
  let idle: (() => void) | null = null;

  // The thread keeps the process alive only while it holds a batch: an answer waits for it, and
  // an idle gateway can still end on its own.
  worker.unref();

  const doHere = (entry: Waiting) => {
    entry.here().then(entry.resolve, entry.reject);
  };

  const send = <T>(
    message: object,
    onHere: () => Promise<T>,
    fromAnswer: (answer: Answer) => T,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        here: onHere,
        fromAnswer,
        resolve: (result) => resolve(result as T),
        reject,
      };
      if (worker === null || closing) {
        doHere(entry);
        return;
      }
      const id = nextId++;
      waiting.set(id, entry);
      worker.ref();
      worker.postMessage({ id, ...message });
    });

  const failed = (error: Error) => {
    if (worker === null) return;
    worker = null;
    if (!closing) onFailure(error);
    for (const [id, entry] of waiting) {
      waiting.delete(id);
      doHere(entry);
    }
    idle?.();
  };

  worker.on('message', (answer: Answer) => {
    const { id, error } = answer;
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    if (waiting.size === 0) {
      worker?.unref();
      idle?.();
    }
    if (!error) {
      entry.resolve(entry.fromAnswer(answer));
      return;
    }
    const failure = new Error(`Writing generation records failed: ${error.message}`);
    Object.assign(failure, { code: error.code });
    entry.reject(failure);
  });
  worker.on('error', (error: unknown) =>
    failed(
      error instanceof Error && error.message
        ? error
        : new Error(`the record-writing thread failed: ${JSON.stringify(error)}`),
    ),
  );
  worker.on('exit', (code) => failed(new Error(`the record-writing thread exited (${code})`)));

  return {
    get running() {
      return worker !== null;
    },
    get idle() {
      return waiting.size === 0;
    },
    insert: (rows) =>
      send(
        { rows },
        () => here.insertGenerations(rows),
        (answer) => answer.corrections ?? [],
      ),
    settle: (now) =>
      send(
        { settleAt: now },
        () => here.settle(now),
        (answer) => new Map(answer.moved),
      ),
    synchronousLevel: () =>
      send(
        { describe: true },
        () => Promise.reject(new Error('the record-writing thread is not running')),
        (answer) => answer.synchronous ?? -1,
      ),
    close() {
      closing ??= (async () => {
        if (waiting.size > 0) await new Promise<void>((resolve) => (idle = resolve));
        const running = worker;
        if (!running) return;
        const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
        // Held until it has closed its connection, so the process does not end before that.
        running.ref();
        running.postMessage({ close: true });
        await exited;
      })();
      return closing;
    },
  };
}
