/**
 * What a request asks of an upstream's prompt cache: whether it marks cache breakpoints
 * (`cache_control`), and the longest entry it asks for. Writing to the cache may cost more than the
 * prompt (Anthropic: 1.25 times for five minutes, twice for an hour), so the reservation prices
 * the prompt at the write price the request can incur.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing
 */
import type { CanonicalCacheControl, CanonicalRequest } from './model';

/** `none`: no breakpoint; else the longest time-to-live any breakpoint asks for. */
export type CacheWriteAsk = 'none' | '5m' | '1h';

/** How deep into a request body a breakpoint can sit (`messages.3.content.0.content.1`…). */
const MAX_DEPTH = 8;

export function askedCacheWrites(request: CanonicalRequest): CacheWriteAsk {
  const found: Array<CanonicalCacheControl | undefined> = [
    request.cacheControl,
    ...(request.systemBlocks ?? []).map((block) => block.cacheControl),
    ...request.messages.flatMap((message) =>
      message.parts.map((part) =>
        part.type === 'text' || part.type === 'tool_result' ? part.cacheControl : undefined,
      ),
    ),
  ];
  // A same-form body goes upstream as sent: its breakpoints are where the client put them.
  if (request.inbound) collectBreakpoints(request.inbound.body, found, 0);
  const asked = found.filter((cache) => cache !== undefined);
  if (asked.length === 0) return 'none';
  return asked.some((cache) => cache.ttl === '1h') ? '1h' : '5m';
}

function collectBreakpoints(
  value: unknown,
  found: Array<CanonicalCacheControl | undefined>,
  depth: number,
): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectBreakpoints(item, found, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const cache = record.cache_control;
  if (cache !== null && typeof cache === 'object') {
    found.push((cache as { ttl?: unknown }).ttl === '1h' ? { ttl: '1h' } : {});
  }
  for (const [key, inner] of Object.entries(record)) {
    if (key !== 'cache_control') collectBreakpoints(inner, found, depth + 1);
  }
}
