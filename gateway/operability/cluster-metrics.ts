/**
 * `/metrics` under `serve --workers N`: the primary hands each connection to some worker, so a
 * worker answering from its own registry alone would show a different process's counters at each
 * scrape, and totals would jump back and forth. Instead the worker that gets the scrape asks the
 * primary, which gathers every worker's registry (prom-client's AggregatorRegistry: counters and
 * histograms summed, each gauge as its `aggregator` says) and sends back the one text.
 * @see node_modules/prom-client/lib/cluster.js
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { z } from 'zod';

const REQUEST = 'gateway:metrics-request';
const RESPONSE = 'gateway:metrics-response';

const requestSchema = z.object({ type: z.literal(REQUEST), id: z.number().int() });
const responseSchema = z.object({
  type: z.literal(RESPONSE),
  id: z.number().int(),
  text: z.string().optional(),
  error: z.string().optional(),
});

/** Longer than prom-client's own five seconds for gathering the workers' registries. */
const ANSWER_TIMEOUT_MS = 6_000;

/**
 * In the primary: answers the workers' requests for the whole cluster's metrics. Returns a
 * function that stops answering.
 */
export function serveClusterMetrics(): () => void {
  const aggregator = new AggregatorRegistry();
  const onMessage = (worker: { send(message: unknown): boolean }, message: unknown) => {
    const request = requestSchema.safeParse(message);
    if (!request.success) return;
    const { id } = request.data;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: RESPONSE, id, text }),
      (error: unknown) =>
        worker.send({
          type: RESPONSE,
          id,
          error: error instanceof Error ? error.message : 'failed',
        }),
    );
  };
  cluster.on('message', onMessage);
  return () => void cluster.off('message', onMessage);
}

/**
 * In a worker: lets the primary read this registry (prom-client answers its requests), and
 * returns how to ask the primary for the whole cluster's scrape.
 */
export function joinClusterMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Its constructor makes this worker answer the primary's requests for its registry.
  new AggregatorRegistry();
  let nextId = 0;
  const waiting = new Map<
    number,
    { resolve(text: string): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >();
  process.on('message', (message: unknown) => {
    const response = responseSchema.safeParse(message);
    if (!response.success) return;
    const pending = waiting.get(response.data.id);
    if (!pending) return;
    waiting.delete(response.data.id);
    clearTimeout(pending.timer);
    if (response.data.text !== undefined) pending.resolve(response.data.text);
    else
      pending.reject(
        new Error(
          `The primary could not gather the workers' metrics: ${response.data.error ?? 'no answer'}.`,
        ),
      );
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = (nextId += 1);
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error("The primary did not answer with the workers' metrics in time."));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      waiting.set(id, { resolve, reject, timer });
      process.send?.({ type: REQUEST, id });
    });
}

/** Whether this process is a worker of `serve --workers`. */
export const isClusterWorker = (): boolean => cluster.isWorker;
