/**
 * Per-key rate limits: requests and tokens (prompt plus max output) per minute, in fixed windows
 * counted by `rate-limiter-flexible`, in memory or in Redis (GATEWAY_REDIS_URL), compared per key.
 * Why: docs/decisions/0012-rate-limit-counters-without-ceilings.md
 */
import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import { GatewayError } from '../errors';
import type { KeyRow } from '../store/store';
import { formatResetDuration } from './rate-limit-headers';

const WINDOW_SECONDS = 60;

/** One limit as the key stands with it now. */
export type RateLimitWindow = {
  /** Per minute. 0: the key is blocked. */
  limit: number;
  remaining: number;
  /** Milliseconds until the count starts again from zero (0: no window open); null when blocked. */
  resetMs: number | null;
};

/** The key's limits after a request was admitted or refused; null: no limit of that kind. */
export type RateLimitState = {
  requests: RateLimitWindow | null;
  tokens: RateLimitWindow | null;
};

/** An admitted request's share of the limits, for `settle`. */
export type RateLimitAdmission = RateLimitState & {
  keyId: string;
  /** Tokens taken at admission (0 when the key has no token limit). */
  takenTokens: number;
  /** Unix ms when the token window they were taken from ends. */
  tokensWindowEndsAt: number;
};

/** The 429 of a rate limit, with the key's limits for the response's headers. */
export class RateLimitError extends GatewayError {
  constructor(
    message: string,
    readonly state: RateLimitState,
    retryAfterSeconds: number | undefined,
  ) {
    super({ status: 429, type: 'rate_limited', stage: 'admission', message, retryAfterSeconds });
    this.name = 'RateLimitError';
  }
}

export interface RateLimits {
  /**
   * Counts one request and `tokens` (prompt plus max output) against the key's limits, or throws
   * the `RateLimitError` that names the limit and when it resets (taking nothing).
   */
  admit(key: KeyRow, tokens: number): Promise<RateLimitAdmission>;
  /**
   * The request ended having used `usedTokens` (its record's prompt plus completion; 0 without a
   * record): gives back what it took and did not use, or counts what it used beyond that.
   */
  settle(admission: RateLimitAdmission, usedTokens: number): Promise<void>;
}

export type RateLimitsOptions = {
  /** Shared counters, exact across instances; without it, counters in this process's memory. */
  redis?: Redis;
  /** Prefix of the Redis keys (`{prefix}rpm:{key id}`, `{prefix}tpm:{key id}`). */
  prefix: string;
  /** Requests per minute of a key whose own limit is null; 0: no limit. */
  defaultRpm: number;
  /** Tokens per minute of a key whose own limit is null; 0: no limit. */
  defaultTpm: number;
};

/**
 * rate-limiter-flexible's increment script, changed for giving back: a negative change to a
 * window that has ended does nothing (instead of opening a new window below zero), and a count
 * never goes below zero. Both limiters on a client share the one `rlflxIncr` command the library
 * defines, so both must use this script.
 */
const incrementScript = `
local change = tonumber(ARGV[1])
if change < 0 and redis.call('exists', KEYS[1]) == 0 then return {0, 0} end
redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], change)
if consumed < 0 then
  redis.call('set', KEYS[1], 0, 'KEEPTTL')
  consumed = 0
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}
`;

export function createRateLimits(options: RateLimitsOptions): RateLimits {
  const counter = (name: 'rpm' | 'tpm'): RateLimiterAbstract => {
    // No ceiling of its own: the key's limit is compared in `admit`.
    const shape = { keyPrefix: `${options.prefix}${name}`, points: Number.MAX_SAFE_INTEGER };
    return options.redis
      ? new RateLimiterRedis({
          ...shape,
          duration: WINDOW_SECONDS,
          storeClient: options.redis,
          customIncrTtlLuaScript: incrementScript,
        })
      : new RateLimiterMemory({ ...shape, duration: WINDOW_SECONDS });
  };
  const requests = counter('rpm');
  const tokens = counter('tpm');

  /** Gives back points; a memory count that would go below zero stops at zero (Redis: the script). */
  const giveBack = async (limiter: RateLimiterAbstract, keyId: string, points: number) => {
    if (points <= 0) return;
    const result = await limiter.reward(keyId, points);
    if (result.consumedPoints < 0) await limiter.penalty(keyId, -result.consumedPoints);
  };

  return {
    async admit(key, wanted) {
      const rpm = limitOf(key.rpmLimit, options.defaultRpm);
      const tpm = limitOf(key.tpmLimit, options.defaultTpm);
      if (rpm === 0 || tpm === 0) {
        const closed = (limit: number | null) =>
          limit === 0 ? { limit: 0, remaining: 0, resetMs: null } : null;
        throw new RateLimitError(
          `This key's ${rpm === 0 ? 'requests' : 'tokens'}-per-minute limit is 0: it may not make inference requests. ` +
            'Ask whoever manages the key to raise the limit.',
          { requests: closed(rpm), tokens: closed(tpm) },
          undefined,
        );
      }
      if (tpm !== null && wanted > tpm) {
        // No wait makes it fit: no Retry-After. Nothing is counted; the headers say what is left.
        const current = await tokens.get(key.id);
        throw new RateLimitError(
          `This request may use up to ${wanted} tokens (prompt plus max_tokens), more than this key's limit of ${tpm} tokens per minute. ` +
            'Lower max_tokens or shorten the prompt; do not retry unchanged.',
          {
            requests: null,
            tokens: {
              limit: tpm,
              remaining: Math.max(tpm - (current?.consumedPoints ?? 0), 0),
              resetMs: Math.max(current?.msBeforeNext ?? 0, 0),
            },
          },
          undefined,
        );
      }

      let requestWindow: RateLimitWindow | null = null;
      if (rpm !== null) {
        const counted = await requests.consume(key.id, 1);
        if (counted.consumedPoints > rpm) {
          await giveBack(requests, key.id, 1);
          const state = { requests: windowOf(rpm, counted, 1), tokens: null };
          throw new RateLimitError(
            `This key may make ${rpm} requests per minute and has made them all; the limit resets in ${formatResetDuration(counted.msBeforeNext)}.`,
            state,
            retryAfter(counted.msBeforeNext),
          );
        }
        requestWindow = windowOf(rpm, counted, 0);
      }

      if (tpm === null) {
        return {
          requests: requestWindow,
          tokens: null,
          keyId: key.id,
          takenTokens: 0,
          tokensWindowEndsAt: 0,
        };
      }
      const counted = await tokens.consume(key.id, wanted);
      if (counted.consumedPoints > tpm) {
        await Promise.all([
          giveBack(tokens, key.id, wanted),
          rpm === null ? undefined : giveBack(requests, key.id, 1),
        ]);
        const state = {
          requests: requestWindow && { ...requestWindow, remaining: requestWindow.remaining + 1 },
          tokens: windowOf(tpm, counted, wanted),
        };
        throw new RateLimitError(
          `This request may use up to ${wanted} tokens (prompt plus max_tokens); this key has ${state.tokens.remaining} of its ${tpm} tokens per minute left, ` +
            `and the limit resets in ${formatResetDuration(counted.msBeforeNext)}. Retry then, or lower max_tokens.`,
          state,
          retryAfter(counted.msBeforeNext),
        );
      }
      return {
        requests: requestWindow,
        tokens: windowOf(tpm, counted, 0),
        keyId: key.id,
        takenTokens: wanted,
        tokensWindowEndsAt: Date.now() + counted.msBeforeNext,
      };
    },

    async settle(admission, usedTokens) {
      if (admission.tokens === null) return;
      const unused = admission.takenTokens - usedTokens;
      if (unused < 0) {
        // The upstream counted more than the estimate: the key used it, so it counts.
        await tokens.penalty(admission.keyId, -unused);
        return;
      }
      // Only into the window the tokens came from: a refund into the next one would let the key
      // spend there what it had already been allowed in this one. (A second's margin covers the
      // round trip; a refund is rarely so late.)
      if (Date.now() >= admission.tokensWindowEndsAt - 1_000) return;
      await giveBack(tokens, admission.keyId, unused);
    },
  };
}

/** The key's own limit (0 blocks), else the default (0: none). null: no limit. */
function limitOf(own: number | null, fallback: number): number | null {
  if (own !== null) return own;
  return fallback > 0 ? fallback : null;
}

/** The window after a count, as if `refused` points had not been counted. */
function windowOf(limit: number, counted: RateLimiterRes, refused: number): RateLimitWindow {
  return {
    limit,
    remaining: Math.max(limit - (counted.consumedPoints - refused), 0),
    resetMs: counted.msBeforeNext,
  };
}

const retryAfter = (milliseconds: number) => Math.max(Math.ceil(milliseconds / 1000), 1);
