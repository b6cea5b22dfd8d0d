/**
 * `serve --workers N`: N gateway processes on one port (Node's `cluster`; the primary hands out
 * connections round-robin), all on the shared store. The primary only supervises: it restarts
 * a worker that dies, and passes SIGINT/SIGTERM on so every worker drains and settles.
 */
import cluster from 'node:cluster';

export type Supervisor = { stop(): Promise<void> };

export function superviseWorkers(
  count: number,
  log: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Supervisor {
  let stopping = false;
  const fork = () => cluster.fork({ GATEWAY_WORKER: '1' });
  for (let index = 0; index < count; index += 1) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // Whatever it had in flight is closed by the others once its lease ends; a new one takes its place.
    log(
      `gateway worker ${worker.process.pid} stopped (${signal ?? `exit ${code}`}); starting another`,
    );
    fork();
  });
  return {
    stop: () => {
      stopping = true;
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
