/**
 * Folds SQLite's write-ahead log into the database from a worker thread with a connection of its
 * own. On the main thread a checkpoint under load held the event loop for about 20 ms once a
 * second: every request arriving meanwhile waited, which was most of the gateway's p99. A PASSIVE
 * checkpoint never waits for (or blocks) the writer, so the worker and the requests run side by
 * side. The worker is a few lines of plain JavaScript, so it runs the same from the sources
 * (tsx) and from the compiled bundle.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.path, { fileMustExist: true });
database.pragma('busy_timeout = 1000');
let timer = null;
let lastLog = -1;
const checkpoint = () => {
  try {
    const [result] = database.pragma('wal_checkpoint(PASSIVE)');
    // The writer starts the log over only when it begins a commit just after a checkpoint caught
    // up with it. Under steady writes a run once a second never does (commits land while it
    // copies), and the log would grow without end; so while the writer is writing, run again
    // soon, each run copying only the few frames since the last, until one catches up.
    const writing = result.log !== lastLog;
    lastLog = result.log;
    timer = setTimeout(checkpoint, writing ? workerData.catchUpMs : workerData.intervalMs);
  } catch (error) {
    parentPort.postMessage({ failed: String(error && error.message) });
    timer = setTimeout(checkpoint, workerData.intervalMs);
  }
};
timer = setTimeout(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearTimeout(timer);
  try { database.pragma('wal_checkpoint(PASSIVE)'); } finally { database.close(); }
  parentPort.close();
});
`;

export type CheckpointWorker = {
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
};

export function startCheckpointWorker(
  databasePath: string,
  intervalMs: number,
  logger: Logger,
): CheckpointWorker {
  const worker = new Worker(workerSource, {
    eval: true,
    // Plain CommonJS whatever flags started this process (see generation-writer-thread.ts).
    execArgv: [],
    workerData: {
      path: databasePath,
      intervalMs,
      catchUpMs: 5,
      // Resolved here, where node_modules is known, not from wherever the process was started.
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
    // Its own small heap: it only ever holds a connection and a timer.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  worker.unref();
  worker.on('message', (message: { failed?: string }) => {
    // The next interval tries again; a checkpoint that fails leaves the log longer, nothing lost.
    logger.warn({ reason: message.failed }, 'checkpoint failed; will retry');
  });
  worker.on('error', (error) => {
    logger.error({ err: error }, 'checkpoint thread failed; the write-ahead log is not folded');
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
