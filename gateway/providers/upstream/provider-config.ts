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
  /**
   * From sending the request to the answer's first text, tool call or end (the whole answer,
   * when it is not streamed): the moment the client gets its headers. Comments, pings, role and
   * thinking events do not count, so an upstream that only keeps the connection alive is cut.
   */
  firstEventMs: number;
  /** From sending the request to the answer's end, however steadily it keeps sending. */
  totalMs: number;
};

/**
 * What one streamed answer may make the gateway hold. Past either limit the answer is refused as
 * the provider's fault (`malformed`), like a whole answer over its cap (32 MiB, in
 * upstream-provider.ts).
 */
export type StreamLimits = {
  /**
   * One server-sent event as the parser holds it before it ends: its unfinished line and its
   * data lines so far (counted in characters, as the parser keeps them).
   */
  maxEventBytes: number;
  /**
   * Everything one streamed answer sends (events with their framing, comments). Whatever the
   * gateway holds of an answer (the text delivered, for the record; tool-call arguments a stream
   * transform gathers) came out of these bytes, so this bounds it whatever the provider kind.
   */
  maxStreamBytes: number;
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
  /**
   * An openai-compatible upstream that speaks the Responses API too (`responses_api` in the
   * providers file): requests in that form go to it as sent, not translated to chat completions.
   */
  responsesApi?: boolean;
  /** The models this provider serves, in file order. */
  models: Array<ModelRoute & { id: string; name: string }>;
  /** `defaultStreamLimits` unless set (tests set small ones). */
  limits?: StreamLimits;
};

export const defaultTimeouts: ProviderTimeouts = {
  connectMs: 5_000,
  firstByteMs: 60_000,
  idleMs: 30_000,
  // A reasoning model may think for minutes before its first token, and the client waits for its
  // headers all that time. The vendors' SDKs give up waiting for headers after 10 minutes (their
  // default timeout): past that, nobody is left to answer.
  firstEventMs: 600_000,
  // The longest answers (64k tokens at 40 tokens a second, after minutes of thinking) take
  // under half an hour; an upstream still sending after that holds the key's slot and its
  // reservation for nothing.
  totalMs: 1_800_000,
};

const MiB = 1024 * 1024;

export const defaultStreamLimits: StreamLimits = {
  // Half a whole answer's cap: no real event comes near it (a text chunk is bytes; a whole tool
  // call, as Gemini sends one, kilobytes), and a line that never ends is cut at 16 MiB instead of
  // filling the heap.
  maxEventBytes: 16 * MiB,
  // Twice a whole answer's cap, since a stream repeats its JSON framing (200–500 bytes) for every
  // token: a 128k-token answer, the longest any model writes, is 30–60 MiB of events. An
  // upstream that keeps sending past it is cut, and no answer holds more than this in memory.
  maxStreamBytes: 64 * MiB,
};

export const defaultRetry: RetryPolicy = { maxAttempts: 2, baseDelayMs: 250, maxDelayMs: 4_000 };

export const defaultBreaker: BreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };
