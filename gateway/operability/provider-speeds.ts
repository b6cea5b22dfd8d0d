/**
 * Each provider's recent speed, for `provider.sort` by latency or throughput: the median latency
 * of completed answers and the output tokens per second over the last 30 minutes of every key's
 * traffic (the figures `GET /v1/models/{id}/endpoints` shows), read from the store at most once
 * per model every few seconds, so a sorted request costs no query of its own most of the time.
 */
import type { ProviderSpeed } from '../pipeline/route-plan';
import { histogramQuantile, type ProviderStatsStore } from '../store/provider-stats';
import { minuteOf } from './provider-availability';

/** How long one read of a model's figures serves; the store itself gains rows every 5 s. */
const FRESH_MS = 5_000;
const WINDOW_MINUTES = 30;

export function providerSpeeds(store: ProviderStatsStore, now: () => number = Date.now) {
  const cache = new Map<string, { readAt: number; speeds: Promise<Map<string, ProviderSpeed>> }>();
  return (modelId: string): Promise<Map<string, ProviderSpeed>> => {
    const cached = cache.get(modelId);
    if (cached && now() - cached.readAt < FRESH_MS) return cached.speeds;
    const minute = minuteOf(now());
    const speeds = store
      .series(modelId, minute - WINDOW_MINUTES + 1, minute + 1, WINDOW_MINUTES)
      .then(
        (rows) =>
          new Map(
            rows.map((row) => [
              row.provider,
              {
                latencyMs: histogramQuantile(row.latency, 0.5),
                tokensPerSecond:
                  row.generationMs > 0 ? (row.outputTokens / row.generationMs) * 1_000 : null,
              },
            ]),
          ),
      )
      // Without figures the routes keep their order: a store that cannot answer stops nothing.
      .catch(() => new Map<string, ProviderSpeed>());
    cache.set(modelId, { readAt: now(), speeds });
    return speeds;
  };
}
