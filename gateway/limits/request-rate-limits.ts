/**
 * One inference request's part in its key's rate limits: admitted once the pipeline has counted
 * the prompt (so the body is counted once), its headers put on the response (the answer's, or
 * the 429's), and settled exactly once however the request ends.
 */
import type { Logger } from 'pino';
import type { KeyRow } from '../store/store';
import { setRateLimitHeaders, type HeaderTarget } from './rate-limit-headers';
import { RateLimitError, type RateLimitAdmission, type RateLimits } from './rate-limits';

export type RequestRateLimits = {
  /** Counts the request and its worst-case tokens, or throws the 429 (with its headers set). */
  admit(estimate: { promptTokens: number; maxOutputTokens: number }): Promise<void>;
  /** The request ended having used these tokens (0 without a record); once, later calls ignored. */
  settle(usedTokens: number): void;
};

export function requestRateLimits(
  limits: RateLimits,
  key: KeyRow,
  response: HeaderTarget,
  logger: Logger,
): RequestRateLimits {
  let admission: RateLimitAdmission | null = null;
  let settled = false;
  return {
    async admit({ promptTokens, maxOutputTokens }) {
      try {
        admission = await limits.admit(key, promptTokens + maxOutputTokens);
      } catch (error) {
        if (error instanceof RateLimitError) setRateLimitHeaders(response, error.state);
        throw error;
      }
      setRateLimitHeaders(response, admission);
    },
    settle(usedTokens) {
      if (settled || admission === null) return;
      settled = true;
      // The answer is out; a refund that fails only leaves the key a little less room.
      limits.settle(admission, usedTokens).catch((error: unknown) => {
        logger.warn({ err: error, keyId: key.id }, 'rate limit refund failed');
      });
    },
  };
}
