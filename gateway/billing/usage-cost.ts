/**
 * What an answer costs at the answering provider's prices: the prompt (the part the upstream read
 * from or wrote to its prompt cache at the cache prices, where the providers file sets them), and
 * the completion. Whole nanos in, whole nanos out.
 */
import type { CacheWriteAsk } from '../canonical/prompt-cache';
import type { ModelRoute } from '../providers/provider';
import type { Nanos } from '../shared/money';

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

/**
 * The dearest a prompt token of a request can be on this route. A cache write may cost more than
 * the prompt: at the five-minute write price where the request marks breakpoints, or where the
 * upstream caches without being asked (`writesUnasked`); at the one-hour price (else the
 * five-minute one, as `usageCost` prices it) only where a breakpoint asks for an hour.
 */
export function worstPromptNanos(
  route: ModelRoute,
  asked: CacheWriteAsk,
  writesUnasked: boolean,
): Nanos {
  let worst = route.promptNanos;
  if (asked !== 'none' || writesUnasked) worst = Math.max(worst, route.cacheWriteNanos ?? 0);
  if (asked === '1h') {
    worst = Math.max(worst, route.cacheWriteHourNanos ?? route.cacheWriteNanos ?? 0);
  }
  return worst;
}
