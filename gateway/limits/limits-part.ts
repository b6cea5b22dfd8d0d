/**
 * The rate limits as a part, with the Redis connection they share with the budget (loaded only
 * when `GATEWAY_REDIS_URL` is set). Closed after the budget, which uses the connection too.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { ReadinessCheck } from '../operability/readiness';
import type { Assembled } from '../shared/assembly';
import { createRateLimits, type RateLimits } from './rate-limits';

export async function createLimits(
  config: GatewayConfig,
  deps: { logger: Logger },
): Promise<
  Assembled<{ rateLimits: RateLimits; redis: Redis | undefined; readiness: ReadinessCheck[] }>
> {
  const redis = config.redisUrl
    ? await (await import('../billing/redis-budget')).connectRedis(config.redisUrl, deps.logger)
    : undefined;
  const rateLimits = createRateLimits({
    redis,
    prefix: config.redisPrefix,
    defaultRpm: config.defaultRpm,
    defaultTpm: config.defaultTpm,
  });
  return {
    part: {
      rateLimits,
      redis,
      readiness: redis ? [{ name: 'redis', ping: async () => void (await redis.ping()) }] : [],
    },
    close: () =>
      redis?.quit().then(
        () => undefined,
        () => undefined,
      ),
  };
}
