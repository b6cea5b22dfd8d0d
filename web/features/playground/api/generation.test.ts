import { ApiRequestError } from '../../../lib/api-client';
import {
  fetchGenerationCharge,
  RecordPending,
  recordAttempts,
  recordRetryDelayMs,
  shouldRetryRecord,
} from './generation';

function failure(status: number): ApiRequestError {
  return new ApiRequestError({
    message: `HTTP ${status}`,
    status,
    stage: status === 0 ? 'network' : 'gateway',
    request: 'GET /api/generation',
  });
}

describe('reading a generation record', () => {
  it('asks again for a record not written yet, or after a hiccup, a bounded number of times', () => {
    for (const status of [404, 0, 502]) expect(shouldRetryRecord(0, failure(status))).toBe(true);
    expect(shouldRetryRecord(recordAttempts - 2, failure(404))).toBe(true);
    expect(shouldRetryRecord(recordAttempts - 1, failure(404))).toBe(false);
  });

  it('asks with pending=1 and takes a pending answer for a record not written yet', async () => {
    const fetchMock = vi.fn(async (_input: RequestInfo | URL) =>
      Response.json({ id: '0123456789abcdef-AMS', pending: true }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const lookup = fetchGenerationCharge('p', '0123456789abcdef-AMS');
    await expect(lookup).rejects.toBeInstanceOf(RecordPending);
    const url = new URL(String(fetchMock.mock.calls[0]?.[0]), 'http://workbench.test');
    expect(url.searchParams.get('pending')).toBe('1');
    expect(shouldRetryRecord(0, new RecordPending('x'))).toBe(true);
    expect(shouldRetryRecord(recordAttempts - 1, new RecordPending('x'))).toBe(false);
    vi.unstubAllGlobals();
  });

  it('does not ask again when asking again cannot help', () => {
    for (const status of [400, 401, 403]) expect(shouldRetryRecord(0, failure(status))).toBe(false);
    expect(shouldRetryRecord(0, new Error('bug'))).toBe(false);
  });

  it('waits a few seconds in all: briefly, not forever', () => {
    const waits = Array.from({ length: recordAttempts - 1 }, (_, index) =>
      recordRetryDelayMs(index),
    );
    const total = waits.reduce((sum, wait) => sum + wait, 0);
    expect(total).toBeGreaterThanOrEqual(2_000);
    expect(total).toBeLessThanOrEqual(5_000);
  });
});
