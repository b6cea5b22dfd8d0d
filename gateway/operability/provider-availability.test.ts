import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { generationRow } from '../store/store-contract';
import { bucketOf, type ProviderStatsRow, type ProviderStatsStore } from '../store/provider-stats';
import { attemptCountsAs, ProviderAvailability } from './provider-availability';

const collecting = () => {
  const added: ProviderStatsRow[][] = [];
  let failNext = false;
  const store: ProviderStatsStore = {
    add: (rows) => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('store down'));
      }
      added.push(rows);
      return Promise.resolve();
    },
    series: () => Promise.resolve([]),
    prune: () => Promise.resolve(0),
  };
  return { store, added, failOnce: () => (failNext = true) };
};

describe('provider availability', () => {
  it('counts attempts by kind, leaving out skipped providers and the caller’s mistakes', () => {
    expect(attemptCountsAs(200)).toBe('success');
    expect(attemptCountsAs(503)).toBe('server_error');
    expect(attemptCountsAs(429)).toBe('rate_limited');
    expect(attemptCountsAs('first_byte_timeout')).toBe('timeout');
    expect(attemptCountsAs(408)).toBe('timeout');
    expect(attemptCountsAs('connect')).toBe('connection');
    expect(attemptCountsAs('malformed')).toBe('other');
    expect(attemptCountsAs(400)).toBeNull();
    expect(attemptCountsAs('cooling_down')).toBeNull();
  });

  it('collects a minute in memory and writes it in one batch, again after a failed write', async () => {
    const { store, added, failOnce } = collecting();
    const now = 60_000 * 1_000 + 5_000;
    const availability = new ProviderAvailability(store, {
      retentionDays: 8,
      logger: pino({ level: 'silent' }),
      now: () => now,
    });
    availability.attempt('m', { provider: 'p', status: 503, latencyMs: 30 });
    availability.attempt('m', { provider: 'p', status: 200, latencyMs: 40 });
    availability.recorded(
      generationRow({
        model: 'm',
        provider: 'p',
        latencyMs: 1_040,
        completionTokens: 50,
        attempts: [
          { provider: 'p', status: 503, latencyMs: 30 },
          { provider: 'p', status: 200, latencyMs: 40 },
        ],
      }),
      1_000,
    );
    failOnce();
    await availability.flush();
    expect(added).toHaveLength(0);
    await availability.close();
    expect(added).toHaveLength(1);
    const [row] = added[0]!;
    expect(row).toMatchObject({
      minute: 1_000,
      requests: 2,
      successes: 1,
      outputTokens: 50,
      generationMs: 1_000,
    });
    expect(row!.failures.server_error).toBe(1);
    expect(row!.latency[bucketOf(1_040)]).toBe(1);
    expect(row!.ttft[bucketOf(40)]).toBe(1);
  });
});
