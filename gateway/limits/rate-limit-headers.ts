/**
 * The rate-limit headers of an inference response, in OpenAI's format, for each limit the key
 * has: `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`,
 * `x-ratelimit-reset-requests` and their `-tokens` counterparts. A limit the key does not have
 * (0 as the gateway's default) gets no headers; a blocked key (its own limit 0) gets limit and
 * remaining 0 and no reset, since nothing resets.
 * @see https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 */
import type { ServerResponse } from 'node:http';
import type { RateLimitState, RateLimitWindow } from './rate-limits';

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (window: RateLimitWindow | null, kind: 'requests' | 'tokens') => {
    if (window === null) return;
    headers[`x-ratelimit-limit-${kind}`] = String(window.limit);
    headers[`x-ratelimit-remaining-${kind}`] = String(window.remaining);
    if (window.resetMs !== null)
      headers[`x-ratelimit-reset-${kind}`] = formatResetDuration(window.resetMs);
  };
  add(state.requests, 'requests');
  add(state.tokens, 'tokens');
  return headers;
}

/**
 * Where rate-limit headers go: an HTTP answer, or what a WebSocket's error frame carries as its
 * `headers` (routes/responses-socket.ts).
 */
export type HeaderTarget = Pick<ServerResponse, 'headersSent' | 'setHeader'>;

/** Sets the headers on a response whose head is not sent yet (an error's or the answer's). */
export function setRateLimitHeaders(response: HeaderTarget, state: RateLimitState): void {
  if (response.headersSent) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(state)))
    response.setHeader(name, value);
}

/**
 * A duration as OpenAI writes it (Go's): `120ms`, `1s`, `1.5s`, `6m0s`, `1h0m0s`; to the
 * millisecond.
 */
export function formatResetDuration(milliseconds: number): string {
  const total = Math.max(Math.ceil(milliseconds), 0);
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = (total % 60_000) / 1000;
  const secondsText = `${Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
