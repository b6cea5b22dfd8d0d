/**
 * What the pipeline does with an upstream failure, without HTTP: how long it waits before a retry
 * (full-jitter exponential backoff, capped, or the upstream's own Retry-After), and which failures
 * are retried, fall back, or count against the provider's health.
 */
import { UpstreamError } from '../providers/upstream-error';
import { allowsFallback, backoffMs, countsAgainstProvider, isRetryable } from './upstream-failure';

const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
/** The largest draw a random source can make: the delay is then its ceiling. */
const highest = () => 1;
const lowest = () => 0;

describe('backoffMs', () => {
  it('doubles its ceiling with each attempt, from the base delay', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, policy, undefined, highest))).toEqual([
      100, 200, 400, 800,
    ]);
  });

  it('never waits longer than max_delay_ms, however many attempts', () => {
    for (const attempt of [5, 6, 10, 64, 2_000]) {
      expect(backoffMs(attempt, policy, undefined, highest)).toBe(1_000);
    }
  });

  it('draws each delay anywhere from 0 up to the ceiling (full jitter), so retries spread out', () => {
    expect(backoffMs(3, policy, undefined, lowest)).toBe(0);
    expect(backoffMs(3, policy, undefined, () => 0.5)).toBe(200);
    expect(backoffMs(3, policy, undefined, () => 0.25)).toBe(100);
    // With the real random source: within bounds every time, and not one fixed delay.
    const delays = Array.from({ length: 200 }, () => backoffMs(3, policy, undefined));
    for (const delay of delays) {
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(400);
    }
    expect(new Set(delays).size).toBeGreaterThan(20);
  });

  it('waits what the upstream’s Retry-After asked instead, whatever the draw', () => {
    expect(backoffMs(1, policy, 2, lowest)).toBe(2_000);
    expect(backoffMs(4, policy, 2, highest)).toBe(2_000);
    expect(backoffMs(1, policy, 0, highest)).toBe(0);
  });
});

const failure = (kind: UpstreamError['failure'], status?: number) =>
  new UpstreamError(kind, 'test', 'failed', status === undefined ? {} : { status });

describe('which failures are retried', () => {
  it.each([
    ['a refused connection', true, failure('connect')],
    ['a connect timeout', true, failure('connect_timeout')],
    ['a first-byte timeout', true, failure('first_byte_timeout')],
    ['a cut answer', true, failure('cut')],
    ['408', true, failure('http', 408)],
    ['429', true, failure('http', 429)],
    ['500', true, failure('http', 500)],
    ['529, in band', true, failure('in_band', 529)],
    ['400', false, failure('http', 400)],
    ['401', false, failure('http', 401)],
    ['403', false, failure('http', 403)],
    ['404', false, failure('http', 404)],
    ['422', false, failure('http', 422)],
    ['an unreadable answer', false, failure('malformed')],
  ])('%s: retried on the same provider: %s', (_, retried, error) => {
    expect(isRetryable(error)).toBe(retried);
  });

  it('falls back to the next provider on anything but the request’s own fault', () => {
    for (const status of [400, 413, 422])
      expect(allowsFallback(failure('http', status))).toBe(false);
    for (const status of [401, 403, 404, 408, 429, 500])
      expect(allowsFallback(failure('http', status))).toBe(true);
    expect(allowsFallback(failure('connect'))).toBe(true);
  });

  it('counts against the provider’s health only what says something about the provider', () => {
    expect(countsAgainstProvider(failure('http', 400))).toBe(false);
    expect(countsAgainstProvider(failure('http', 403))).toBe(false);
    expect(countsAgainstProvider(failure('http', 401))).toBe(true);
    expect(countsAgainstProvider(failure('http', 503))).toBe(true);
    expect(countsAgainstProvider(failure('connect'))).toBe(true);
    const slowReader = new UpstreamError('total_timeout', 'test', 'slow', { slowReader: true });
    expect(countsAgainstProvider(slowReader)).toBe(false);
  });
});
