/**
 * Writes the gateway's generation records, and settles them, from a worker thread with a SQLite
 * connection of its own (generation-writer-worker.ts, which runs generation-writes.ts's writes,
 * the main thread's own); the main thread takes over if it fails.
 * Why: docs/decisions/0002-sqlite-with-a-record-writing-thread.md
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../shared/module-worker';
import { JOURNAL_SIZE_LIMIT } from './generation-writes';
import type { WriterData } from './generation-writer-worker';
import type { Nanos } from '../shared/money';
import type { GenerationRow, RecordCorrection } from './store';

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
  const workerData: WriterData = {
    path: databasePath,
    journalSizeLimit: JOURNAL_SIZE_LIMIT,
    synchronous,
  };
  let worker: Worker | null = startModuleWorker(
    new URL('./generation-writer-worker.ts', import.meta.url),
    {
      workerData,
      // What it holds lives for one batch. V8's default young generation (two 16 MB halves) grew
      // to 40 MB of the gateway's memory under load; a small one is collected more often, each
      // time in a fraction of a millisecond, and none of it on the event loop.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    },
  );
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
