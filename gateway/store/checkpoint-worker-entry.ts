/**
 * The checkpoint thread's entry (started by checkpoint-worker.ts through shared/module-worker.ts):
 * a connection of its own that folds the write-ahead log into the database with PASSIVE
 * checkpoints, once an interval, and a last time when told to stop.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** What the main thread gives the thread at its start. */
export type CheckpointData = { path: string; intervalMs: number; catchUpMs: number };

const port = parentPort!;
const data = workerData as CheckpointData;
const database = new Database(data.path, { fileMustExist: true });
database.pragma('busy_timeout = 1000');
let timer: NodeJS.Timeout | undefined;
let lastLog = -1;

const checkpoint = () => {
  try {
    const [result] = database.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
    // The writer starts the log over only when it begins a commit just after a checkpoint caught
    // up with it. Under steady writes a run once a second never does (commits land while it
    // copies), and the log would grow without end; so while the writer is writing, run again
    // soon, each run copying only the few frames since the last, until one catches up.
    const writing = result?.log !== lastLog;
    lastLog = result?.log ?? -1;
    timer = setTimeout(checkpoint, writing ? data.catchUpMs : data.intervalMs);
  } catch (error) {
    port.postMessage({ failed: String((error as Error | undefined)?.message) });
    timer = setTimeout(checkpoint, data.intervalMs);
  }
};
timer = setTimeout(checkpoint, data.intervalMs);
port.postMessage({ ready: true });

port.on('message', () => {
  clearTimeout(timer);
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    database.close();
  }
  port.close();
});
