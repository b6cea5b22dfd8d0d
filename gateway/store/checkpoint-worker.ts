/**
 * Folds SQLite's write-ahead log into the database from a worker thread with a connection of its
 * own. On the main thread a checkpoint under load held the event loop for about 20 ms once a
 * second: every request arriving meanwhile waited, which was most of the gateway's p99. A PASSIVE
 * checkpoint never waits for (or blocks) the writer, so the worker and the requests run side by
 * side. The thread's entry is checkpoint-worker-entry.ts, bundled beside the gateway as
 * dist/checkpoint-worker-entry.js (see shared/module-worker.ts).
 */
import type { Logger } from 'pino';
import { startModuleWorker } from '../shared/module-worker';
import type { CheckpointData } from './checkpoint-worker-entry';

export type CheckpointWorker = {
  /** Settles once the thread runs, with its connection open (a thread can take a while to start). */
  ready: Promise<void>;
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
};

export function startCheckpointWorker(
  databasePath: string,
  intervalMs: number,
  logger: Logger,
): CheckpointWorker {
  const workerData: CheckpointData = { path: databasePath, intervalMs, catchUpMs: 5 };
  const worker = startModuleWorker(new URL('./checkpoint-worker-entry.ts', import.meta.url), {
    workerData,
    // Its own small heap: it only ever holds a connection and a timer.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  worker.unref();
  let started: () => void = () => {};
  const ready = new Promise<void>((resolve) => (started = resolve));
  worker.on('message', (message: { failed?: string; ready?: true }) => {
    if (message.ready) return started();
    // The next interval tries again; a checkpoint that fails leaves the log longer, nothing lost.
    logger.warn({ reason: message.failed }, 'checkpoint failed; will retry');
  });
  worker.on('error', (error) => {
    logger.error({ err: error }, 'checkpoint thread failed; the write-ahead log is not folded');
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A thread that ends before it started leaves nobody waiting.
  void exited.then(() => started());
  return {
    ready,
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
