/**
 * What an answer costs at the answering provider's prices: the prompt (the part the upstream read
 * from or wrote to its prompt cache at the cache prices, where the providers file sets them), and
 * the completion. Whole nanos in, whole nanos out.
 */
import type { ModelRoute } from '../providers/provider';
import type { Nanos } from './money';

export type ChargedUsage = {
  promptTokens: number;
  completionTokens: number;
  /** Of `promptTokens`, read from and written to the prompt cache. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, written to a one-hour cache entry. */
  cacheWriteHourTokens: number;
  /** Of `completionTokens`, spent reasoning: priced as completion, recorded apart. */
  reasoningTokens?: number;
};

export function usageCost(route: ModelRoute, usage: ChargedUsage): Nanos {
  const uncached = usage.promptTokens - usage.cacheReadTokens - usage.cacheWriteTokens;
  const writeNanos = route.cacheWriteNanos ?? route.promptNanos;
  return (
    uncached * route.promptNanos +
    usage.cacheReadTokens * (route.cacheReadNanos ?? route.promptNanos) +
    (usage.cacheWriteTokens - usage.cacheWriteHourTokens) * writeNanos +
    usage.cacheWriteHourTokens * (route.cacheWriteHourNanos ?? writeNanos) +
    usage.completionTokens * route.completionNanos
  );
}

/** The dearest a prompt token can be on this route: a cache write may cost more than the prompt. */
export const worstPromptNanos = (route: ModelRoute): Nanos =>
  Math.max(route.promptNanos, route.cacheWriteNanos ?? 0, route.cacheWriteHourNanos ?? 0);
