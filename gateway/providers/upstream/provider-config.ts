/**
 * One upstream provider as the gateway runs it: the providers file's entry, validated, with its
 * key read from the environment variable the file names (the file never holds a key).
 */
import type { ModelRoute, ProviderKind } from '../provider';

export type UpstreamKind = Exclude<ProviderKind, 'simulated'>;

export type ProviderTimeouts = {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From sending the request to the response headers. */
  firstByteMs: number;
  /** Longest silence between two chunks of an answer. */
  idleMs: number;
};

export type RetryPolicy = {
  /** Attempts on this provider before falling back to the next (1 = no retry). */
  maxAttempts: number;
  /** First backoff; it doubles per attempt, with full jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
};

export type BreakerPolicy = {
  /** Consecutive failed requests that take the provider out of rotation. */
  failureThreshold: number;
  /** How long it stays out before one trial request is let through. */
  cooldownMs: number;
};

export type ProviderConfig = {
  id: string;
  kind: UpstreamKind;
  /** As the vendor's official client takes it (with `/v1` for openai-compatible). */
  baseUrl: string;
  /** The upstream key, from the environment; may be empty for a local server that needs none. */
  apiKey: string;
  apiKeyEnv: string;
  timeouts: ProviderTimeouts;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  /** Extra headers sent upstream on every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers: Record<string, string>;
  /**
   * Whether image URLs are fetched by the gateway and sent inline (base64), for upstreams that
   * cannot fetch a URL themselves. Gemini always needs it; others default to passing the URL.
   */
  inlineImageUrls: boolean;
  /** The models this provider serves, in file order. */
  models: Array<ModelRoute & { id: string; name: string }>;
};

export const defaultTimeouts: ProviderTimeouts = {
  connectMs: 5_000,
  firstByteMs: 60_000,
  idleMs: 30_000,
};

export const defaultRetry: RetryPolicy = { maxAttempts: 2, baseDelayMs: 250, maxDelayMs: 4_000 };

export const defaultBreaker: BreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };
