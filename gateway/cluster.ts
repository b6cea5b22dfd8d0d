/**
 * `serve --workers N`: N gateway processes on one port (Node's `cluster`; the primary hands out
 * connections round-robin), all on the shared store. The primary only supervises: it restarts
 * a worker that dies (after a growing pause when workers keep dying soon after they start, so a
 * worker that cannot start does not make it fork in a tight loop), answers the workers' requests
 * for the whole cluster's metrics, and passes SIGINT/SIGTERM on so every worker drains and
 * settles.
 */
import cluster from 'node:cluster';
import { serveClusterMetrics } from './operability/cluster-metrics';

export type Supervisor = { stop(): Promise<void> };

/** A worker that lived this long is taken to have started well: the backoff starts over. */
export const HEALTHY_AFTER_MS = 10_000;

/**
 * How long to wait before replacing a worker, given how many workers in a row died within
 * `HEALTHY_AFTER_MS` of starting (this one included): none for a worker that ran well, then
 * 1 s, 2 s, 4 s… up to 30 s.
 */
export function restartDelayMs(quickDeathsInARow: number): number {
  if (quickDeathsInARow === 0) return 0;
  return Math.min(30_000, 1_000 * 2 ** (quickDeathsInARow - 1));
}

export function superviseWorkers(
  count: number,
  log: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Supervisor {
  let stopping = false;
  let quickDeathsInARow = 0;
  const startedAt = new Map<number, number>();
  const pending = new Set<NodeJS.Timeout>();
  const fork = () => {
    const worker = cluster.fork({ GATEWAY_WORKER: '1' });
    startedAt.set(worker.id, Date.now());
  };
  const stopMetrics = serveClusterMetrics();
  for (let index = 0; index < count; index += 1) fork();
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    if (stopping) return;
    quickDeathsInARow = lived < HEALTHY_AFTER_MS ? quickDeathsInARow + 1 : 0;
    const delay = restartDelayMs(quickDeathsInARow);
    // Whatever it had in flight is closed by the others once its lease ends; a new one takes its place.
    log(
      `gateway worker ${worker.process.pid} stopped (${signal ?? `exit ${code}`}); ` +
        (delay === 0 ? 'starting another' : `starting another in ${delay / 1000}s`),
    );
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!stopping) fork();
    }, delay);
    pending.add(timer);
  });
  return {
    stop: () => {
      stopping = true;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      stopMetrics();
      const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
      return Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.once('exit', () => resolve());
              worker.process.kill('SIGTERM');
            }),
        ),
      ).then(() => undefined);
    },
  };
}

export const isClusterPrimary = () => cluster.isPrimary;
