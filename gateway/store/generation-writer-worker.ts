/**
 * The record-writing thread's entry (started by generation-writer-thread.ts through
 * shared/module-worker.ts): opens a SQLite connection of its own and runs generation-writes.ts's
 * writes on it, one message at a time, answering each with its result or its error.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { createGenerationWrites, type GenerationWrites } from './generation-writes';
import type { GenerationRow } from './store';

/** What the main thread gives the thread at its start. */
export type WriterData = {
  path: string;
  journalSizeLimit: number;
  synchronous: 'FULL' | 'NORMAL';
};

/** One piece of work from the main thread, or the word to end. */
export type WriterMessage =
  | { close: true }
  | { id: number; describe: true }
  | { id: number; settleAt: number }
  | { id: number; rows: GenerationRow[] };

const port = parentPort!;
const data = workerData as WriterData;

let database: Database.Database;
let writes: GenerationWrites;
try {
  database = new Database(data.path, { fileMustExist: true });
  // Records are synced to disk with their commit (FULL) unless the operator chose speed over a
  // power cut (NORMAL: on disk for a killed process, in the OS's cache for a lost machine). The
  // sync's wait is this thread's alone. Checkpoints are the checkpoint thread's. Waiting for
  // another's lock blocks only this thread, so it waits long: a record that fails fails an
  // answered request.
  database.pragma('busy_timeout = 30000');
  database.pragma(`synchronous = ${data.synchronous}`);
  database.pragma('wal_autocheckpoint = 0');
  // The log is cut back by whichever connection starts it over, with its own limit.
  database.pragma(`journal_size_limit = ${data.journalSizeLimit}`);
  database.pragma('foreign_keys = ON');
  writes = createGenerationWrites(database);
} catch (error) {
  // SQLite's own error type loses its message on the way to the main thread; a plain one keeps it.
  throw new Error(`cannot open ${data.path}: ${(error as Error | undefined)?.message}`, {
    cause: error,
  });
}

port.on('message', (message: WriterMessage) => {
  if ('close' in message) {
    database.close();
    port.close();
    return;
  }
  try {
    if ('describe' in message) {
      port.postMessage({
        id: message.id,
        synchronous: database.pragma('synchronous', { simple: true }),
      });
    } else if ('settleAt' in message) {
      port.postMessage({ id: message.id, moved: [...writes.settle(message.settleAt)] });
    } else {
      port.postMessage({ id: message.id, corrections: writes.insertGenerations(message.rows) });
    }
  } catch (error) {
    const failure = error as { message?: unknown; code?: string } | undefined;
    port.postMessage({
      id: message.id,
      error: { message: String(failure?.message), code: failure?.code },
    });
  }
});
