/**
 * What the pipeline does with an upstream failure: retry the same provider, fall back to the
 * next, or give up; and the client's error for it. Before the first byte only; once the answer
 * has started there is no retry (the client would see text twice).
 */
import { GatewayError } from '../errors';
import type { UpstreamError } from '../providers/upstream-error';

/** Retried on the same provider: connection errors, timeouts, 408, 429, 5xx and overloads. */
export function isRetryable(error: UpstreamError): boolean {
  switch (error.failure) {
    case 'connect':
    case 'connect_timeout':
    case 'first_byte_timeout':
    case 'idle_timeout':
    case 'first_event_timeout':
    case 'total_timeout':
    case 'cut':
      return true;
    case 'http':
    case 'in_band': {
      const status = error.details.status ?? 500;
      return status === 408 || status === 429 || status >= 500;
    }
    case 'malformed':
    default:
      return false;
  }
}

/**
 * Worth trying the next provider: everything but the caller's own mistakes (400, 413, 422),
 * which every provider would refuse alike.
 */
export function allowsFallback(error: UpstreamError): boolean {
  if (error.failure !== 'http') return true;
  const status = error.details.status ?? 500;
  return ![400, 413, 422].includes(status);
}

/** Whether the failure says something about the provider's health (for the breaker). */
export function countsAgainstProvider(error: UpstreamError): boolean {
  if (error.details.slowReader) return false;
  if (error.failure !== 'http') return true;
  const status = error.details.status ?? 500;
  return status === 401 || status === 408 || status === 429 || status >= 500;
}

const isRateLimit = (error: UpstreamError) =>
  (error.failure === 'http' || error.failure === 'in_band') && error.details.status === 429;

/**
 * The client's error for the last failure. `everyProviderLimited` turns a 429 into a 503: the
 * model as a whole is at capacity, not the caller's key.
 */
export function toClientError(error: UpstreamError, everyProviderLimited: boolean): GatewayError {
  const who = `Provider '${error.providerId}'`;
  const status = error.details.status;
  const retryAfter = error.details.retryAfterSeconds;
  switch (error.failure) {
    case 'connect':
      return new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: `${who} could not be reached. Retry later.`,
        retryAfterSeconds: 5,
      });
    case 'total_timeout':
      if (error.details.slowReader) {
        return new GatewayError({
          status: 504,
          type: 'provider_error',
          stage: 'provider',
          message: `${error.message} Read the stream as it comes, or ask for a shorter answer.`,
          retryAfterSeconds: 5,
        });
      }
      return timedOut(who, error);
    case 'connect_timeout':
    case 'first_byte_timeout':
    case 'idle_timeout':
    case 'first_event_timeout':
      return timedOut(who, error);
    case 'malformed':
      return new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: `${who} sent an answer the gateway cannot read: ${error.message}`,
        retryAfterSeconds: 5,
      });
    case 'cut':
      return new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: `${who}: ${error.message} Retry later.`,
        retryAfterSeconds: 5,
      });
    case 'in_band':
    case 'http':
    default:
      break;
  }
  if (isRateLimit(error)) {
    return everyProviderLimited
      ? new GatewayError({
          status: 503,
          type: 'provider_error',
          stage: 'provider',
          message: `Every provider of this model is rate limited (${who}: ${error.message}). Retry after the delay given.`,
          retryAfterSeconds: retryAfter ?? 5,
        })
      : new GatewayError({
          status: 429,
          type: 'rate_limited',
          stage: 'provider',
          message: `${who} is rate limiting: ${error.message}`,
          retryAfterSeconds: retryAfter ?? 5,
        });
  }
  if (status === 400 || status === 413 || status === 422) {
    return new GatewayError({
      status: 400,
      type: 'invalid_request',
      stage: 'provider',
      message: `${who} refused the request: ${error.message}`,
    });
  }
  if (status === 403) {
    return new GatewayError({
      status: 403,
      type: 'permission_denied',
      stage: 'provider',
      message: `${who} denied the request: ${error.message}`,
    });
  }
  if (status === 401) {
    return new GatewayError({
      status: 502,
      type: 'provider_error',
      stage: 'provider',
      message: `${who} refused the gateway's own credentials. This is the gateway's configuration, not your key: tell its operator.`,
      retryAfterSeconds: 30,
    });
  }
  if (status === 404) {
    return new GatewayError({
      status: 502,
      type: 'provider_error',
      stage: 'provider',
      message: `${who} does not serve the configured upstream model: ${error.message}`,
      retryAfterSeconds: 30,
    });
  }
  if (status === 503 || status === 529) {
    return new GatewayError({
      status: 503,
      type: 'provider_error',
      stage: 'provider',
      message: `${who} is overloaded: ${error.message} Retry later.`,
      retryAfterSeconds: retryAfter ?? 5,
    });
  }
  return new GatewayError({
    status: 502,
    type: 'provider_error',
    stage: 'provider',
    message: `${who} failed (HTTP ${status ?? 'error'}): ${error.message} Retry later.`,
    retryAfterSeconds: retryAfter ?? 5,
  });
}

/** Full-jitter exponential backoff, or the upstream's `Retry-After` when it gave one. */
export function backoffMs(
  attempt: number,
  policy: { baseDelayMs: number; maxDelayMs: number },
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

const timedOut = (who: string, error: UpstreamError) =>
  new GatewayError({
    status: 504,
    type: 'provider_error',
    stage: 'provider',
    message: `${who} timed out: ${error.message} Retry later.`,
    retryAfterSeconds: 5,
  });
