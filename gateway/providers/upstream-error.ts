/**
 * How an upstream failed, as every provider kind reports it. The pipeline decides from `failure`
 * and `status` whether to retry, fall back or give up, and maps it to the client's error; the
 * message is already cleaned of keys and internal addresses (see clean-message.ts).
 */
export const UPSTREAM_FAILURES = [
  /** Refused, reset or unreachable before any answer. */
  'connect',
  'connect_timeout',
  /** No response headers within the first-byte timeout. */
  'first_byte_timeout',
  /** The stream went silent for longer than the idle timeout. */
  'idle_timeout',
  /** No text, tool call or end of the answer within the first-event timeout (comments do not count). */
  'first_event_timeout',
  /** The answer did not end within the total timeout, however steadily it kept sending. */
  'total_timeout',
  /** A non-2xx status. */
  'http',
  /**
   * An answer that cannot be read: bad JSON, wrong content type, a shape the kind does not know,
   * or larger than the gateway accepts (a whole answer, one event, or a whole stream).
   */
  'malformed',
  /** The upstream answered 200, then reported an error inside the stream (e.g. `overloaded_error`). */
  'in_band',
  /** The connection ended before the answer did. */
  'cut',
] as const;

export type UpstreamFailure = (typeof UPSTREAM_FAILURES)[number];

export class UpstreamError extends Error {
  constructor(
    readonly failure: UpstreamFailure,
    readonly providerId: string,
    message: string,
    readonly details: {
      /** HTTP status of the upstream's answer (or the status an in-band error stands for). */
      status?: number;
      /** Seconds the upstream asked us to wait (`Retry-After`). */
      retryAfterSeconds?: number;
      /** The upstream's own error type (`overloaded_error`, `RESOURCE_EXHAUSTED`…). */
      upstreamType?: string;
      /** A total deadline that passed only because the client read slowly: not the provider's fault. */
      slowReader?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}
