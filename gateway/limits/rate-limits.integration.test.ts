import type { Redis } from 'ioredis';
import { keyRowFixture } from '../../testing/upstreams/key-rows';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { KeyRow } from '../store/store';
import { formatResetDuration, rateLimitHeaders } from './rate-limit-headers';
import {
  createRateLimits,
  RateLimitError,
  type RateLimits,
  type RateLimitsOptions,
} from './rate-limits';
import {
  deleteKeys,
  redisAvailable,
  testRedisClient,
  testRedisPrefix,
} from '../../testing/upstreams/shared-services';

const available = await redisAvailable('limits/rate-limits.integration.test.ts');

let sequence = 0;
/** A key of its own for each test, so no test sees another's counts. */
const keyRow = (overrides: Partial<KeyRow> = {}) =>
  keyRowFixture({ id: `key_limits_${(sequence += 1)}`, name: 'limits', ...overrides });

async function refusalOf(action: Promise<unknown>): Promise<RateLimitError> {
  try {
    await action;
  } catch (error) {
    if (error instanceof RateLimitError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

type Backend = {
  name: string;
  skip: boolean;
  /** `count` limiters sharing one set of counters (for memory, the same one). */
  limiters(count: number, defaults?: Partial<RateLimitsOptions>): RateLimits[];
  cleanUp(): Promise<void>;
};

const memory: Backend = {
  name: 'memory',
  skip: false,
  limiters(count, defaults = {}) {
    const limits = createRateLimits({ prefix: '', defaultRpm: 0, defaultTpm: 0, ...defaults });
    return Array.from({ length: count }, () => limits);
  },
  cleanUp: async () => {},
};

const prefix = testRedisPrefix('rate-limits');
const clients: Redis[] = [];
const redis: Backend = {
  name: 'redis',
  skip: !available,
  limiters(count, defaults = {}) {
    // One client per limiter, as separate gateway instances have.
    return Array.from({ length: count }, () => {
      const client = testRedisClient();
      clients.push(client);
      return createRateLimits({ redis: client, prefix, defaultRpm: 0, defaultTpm: 0, ...defaults });
    });
  },
  async cleanUp() {
    const cleaner = testRedisClient();
    await deleteKeys(cleaner, prefix);
    expect(await cleaner.keys(`${prefix}*`)).toEqual([]);
    await cleaner.quit();
    await Promise.all(clients.splice(0).map((client) => client.quit()));
  },
};

describe.each([memory, redis])('rate limits in $name', (backend) => {
  describe.skipIf(backend.skip)('', () => {
    afterAll(() => backend.cleanUp());

    it('refuses exactly one of N+1 requests in a minute, across instances', async () => {
      const limiters = backend.limiters(2);
      const key = keyRow({ rpmLimit: 25 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 26 }, (_, index) => limiters[index % 2]!.admit(key, 10)),
      );
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused).toHaveLength(1);
      const error = (refused[0] as PromiseRejectedResult).reason as RateLimitError;
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.status).toBe(429);
      expect(error.type).toBe('rate_limited');
      expect(error.stage).toBe('admission');
      expect(error.message).toMatch(/25 requests per minute .* resets in (\d+m)?\d+(\.\d+)?s\./);
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(error.state.requests).toMatchObject({ limit: 25, remaining: 0 });
      // The refusal took nothing: with the limit raised by one, exactly one more fits.
      await refusalOf(limiters[1]!.admit(key, 10));
      const raised = { ...key, rpmLimit: 26 };
      expect((await limiters[0]!.admit(raised, 10)).requests).toMatchObject({ remaining: 0 });
      await refusalOf(limiters[1]!.admit(raised, 10));
    });

    it('limits tokens, and a refused request takes nothing from either limit', async () => {
      const [limits] = backend.limiters(1);
      const key = keyRow({ rpmLimit: 10, tpmLimit: 1_000 });
      const first = await limits!.admit(key, 600);
      expect(first.requests).toMatchObject({ limit: 10, remaining: 9 });
      expect(first.tokens).toMatchObject({ limit: 1_000, remaining: 400 });

      const error = await refusalOf(limits!.admit(key, 500));
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(error.message).toMatch(
        /up to 500 tokens .* has 400 of its 1000 tokens per minute left/,
      );
      expect(error.state.tokens).toMatchObject({ limit: 1_000, remaining: 400 });
      expect(error.state.requests).toMatchObject({ limit: 10, remaining: 9 });

      // Neither the request nor its tokens were counted: 400 tokens still fit, as the 2nd request.
      const second = await limits!.admit(key, 400);
      expect(second.requests).toMatchObject({ remaining: 8 });
      expect(second.tokens).toMatchObject({ remaining: 0 });
    });

    it('does not count tokens for a request refused by the requests limit', async () => {
      const [limits] = backend.limiters(1);
      const key = keyRow({ rpmLimit: 1, tpmLimit: 1_000 });
      await limits!.admit(key, 100);
      await refusalOf(limits!.admit(key, 100));
      const other = await limits!.admit(keyRow({ ...key, rpmLimit: 5 }), 900);
      expect(other.tokens).toMatchObject({ remaining: 0 });
    });

    it('gives back unused tokens when the request ends, and counts an overshoot', async () => {
      const [limits] = backend.limiters(1);
      const key = keyRow({ tpmLimit: 1_000 });
      const admitted = await limits!.admit(key, 800);
      await limits!.settle(admitted, 300);
      expect((await limits!.admit(key, 500)).tokens).toMatchObject({ remaining: 200 });

      const over = await limits!.admit(keyRow({ ...key, id: `${key.id}_over` }), 100);
      await limits!.settle(over, 250);
      const after = await limits!.admit(keyRow({ ...key, id: `${key.id}_over` }), 1);
      expect(after.tokens).toMatchObject({ remaining: 749 });
    });

    it('gives back nothing into a later window, and never below zero', async () => {
      const [limits] = backend.limiters(1);
      const key = keyRow({ tpmLimit: 1_000 });
      const admitted = await limits!.admit(key, 600);
      // Its window has ended (as far as settle can tell): no refund.
      await limits!.settle({ ...admitted, tokensWindowEndsAt: Date.now() }, 0);
      expect((await limits!.admit(key, 1)).tokens).toMatchObject({ remaining: 399 });
      // A refund larger than the count stops at zero: the key gets no credit beyond its limit.
      await limits!.settle({ ...admitted, takenTokens: 5_000 }, 0);
      expect((await limits!.admit(key, 1_000)).tokens).toMatchObject({ remaining: 0 });
    });

    it('uses the defaults for a key without limits of its own; default 0 is no limit', async () => {
      const [limits] = backend.limiters(1, { defaultRpm: 2, defaultTpm: 0 });
      const key = keyRow();
      const admitted = await limits!.admit(key, 1_000_000);
      expect(admitted.requests).toMatchObject({ limit: 2, remaining: 1 });
      expect(admitted.tokens).toBeNull();
      expect(Object.keys(rateLimitHeaders(admitted)).sort()).toEqual([
        'x-ratelimit-limit-requests',
        'x-ratelimit-remaining-requests',
        'x-ratelimit-reset-requests',
      ]);
      // Its own limit wins over the default.
      expect((await limits!.admit(keyRow({ ...key, rpmLimit: 10 }), 1)).requests).toMatchObject({
        limit: 10,
        remaining: 8,
      });
      const unlimited = await backend.limiters(1)[0]!.admit(keyRow(), 1_000_000);
      expect(rateLimitHeaders(unlimited)).toEqual({});
    });

    it('blocks a key whose own limit is 0, without Retry-After (waiting does not help)', async () => {
      const [limits] = backend.limiters(1, { defaultRpm: 100, defaultTpm: 100_000 });
      const error = await refusalOf(limits!.admit(keyRow({ rpmLimit: 0 }), 10));
      expect(error.status).toBe(429);
      expect(error.retryAfterSeconds).toBeUndefined();
      expect(error.message).toMatch(/requests-per-minute limit is 0/);
      expect(rateLimitHeaders(error.state)).toEqual({
        'x-ratelimit-limit-requests': '0',
        'x-ratelimit-remaining-requests': '0',
      });
    });

    it('refuses a request larger than the whole token limit, counting nothing', async () => {
      const [limits] = backend.limiters(1);
      const key = keyRow({ rpmLimit: 5, tpmLimit: 1_000 });
      const error = await refusalOf(limits!.admit(key, 1_001));
      expect(error.retryAfterSeconds).toBeUndefined();
      expect(error.message).toMatch(/up to 1001 tokens .* more than this key's limit of 1000/);
      const admitted = await limits!.admit(key, 1_000);
      expect(admitted.requests).toMatchObject({ remaining: 4 });
      expect(admitted.tokens).toMatchObject({ remaining: 0 });
    });

    it('writes the headers of both limits in OpenAI format', async () => {
      const [limits] = backend.limiters(1);
      const admitted = await limits!.admit(keyRow({ rpmLimit: 60, tpmLimit: 150_000 }), 16);
      const headers = rateLimitHeaders(admitted);
      expect(headers).toMatchObject({
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-limit-tokens': '150000',
        'x-ratelimit-remaining-tokens': '149984',
      });
      for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
        // A fresh window: `1m0s`, or a few milliseconds less (`59.998s`).
        const [, minutes, rest] = /^(?:(\d+)m)?(\d+(?:\.\d+)?)s$/.exec(headers[name]!) ?? [];
        const seconds = Number(minutes ?? 0) * 60 + Number(rest);
        expect(seconds).toBeGreaterThan(55);
        expect(seconds).toBeLessThanOrEqual(60);
      }
    });
  });
});

describe.skipIf(!available)('rate limits in Redis, giving back', () => {
  const ownPrefix = testRedisPrefix('rate-limits-give-back');
  let client: Redis;
  let limits: RateLimits;

  beforeAll(() => {
    client = testRedisClient();
    limits = createRateLimits({ redis: client, prefix: ownPrefix, defaultRpm: 0, defaultTpm: 0 });
  });

  afterAll(async () => {
    await deleteKeys(client, ownPrefix);
    await client.quit();
  });

  // A count below zero, even between two commands, would let another instance in past the limit;
  // a refund into a window that ended would open one below zero. The script prevents both at once.
  it('never takes a count below zero, nor opens a window, even for a moment', async () => {
    const penalty = vi.spyOn(RateLimiterRedis.prototype, 'penalty');
    try {
      const key = keyRow({ tpmLimit: 1_000 });
      const admitted = await limits.admit(key, 600);
      await limits.settle({ ...admitted, takenTokens: 5_000 }, 0);
      expect(await client.get(`${ownPrefix}tpm:${key.id}`)).toBe('0');

      await client.del(`${ownPrefix}tpm:${key.id}`);
      await limits.settle(admitted, 0);
      expect(await client.exists(`${ownPrefix}tpm:${key.id}`)).toBe(0);
      expect(penalty).not.toHaveBeenCalled();
    } finally {
      penalty.mockRestore();
    }
  });
});

describe('formatResetDuration', () => {
  it("writes durations as OpenAI does (Go's format)", () => {
    expect(formatResetDuration(0)).toBe('0s');
    expect(formatResetDuration(20)).toBe('20ms');
    expect(formatResetDuration(999.2)).toBe('1s');
    expect(formatResetDuration(1_000)).toBe('1s');
    expect(formatResetDuration(1_500)).toBe('1.5s');
    expect(formatResetDuration(59_999)).toBe('59.999s');
    expect(formatResetDuration(60_000)).toBe('1m0s');
    expect(formatResetDuration(360_000)).toBe('6m0s');
    expect(formatResetDuration(61_250)).toBe('1m1.25s');
    expect(formatResetDuration(3_600_000)).toBe('1h0m0s');
  });
});
