/**
 * The charge held to what was reserved, and the record's `charge_capped` saying so whenever the
 * charge is less than the usage would have cost, for either reason.
 */
import type { ModelRoute } from '../providers/provider';
import { worstPromptNanos } from '../billing/usage-cost';
import { capCharge } from './charge-cap';

const route: ModelRoute = {
  providerId: 'ant',
  upstreamModel: 'claude-upstream-1',
  promptNanos: 150,
  completionNanos: 3_000,
  contextLength: 200_000,
  maxCompletionTokens: 8_192,
  inputModalities: ['text'],
  supportedParameters: [],
};
const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWriteHourTokens: 0,
});
const roomy = { maxOutputTokens: 50, reservedNanos: 10_000_000 };

describe('the charge', () => {
  it('is the usage’s cost, not capped, within max_tokens and the reservation', () => {
    expect(capCharge(route, usage(12, 50), roomy)).toEqual({
      usage: usage(12, 50),
      costNanos: 12 * 150 + 50 * 3_000,
      uncappedNanos: 12 * 150 + 50 * 3_000,
      capped: false,
    });
  });

  it('holds a completion past max_tokens to max_tokens, and says it was capped', () => {
    const charge = capCharge(route, usage(12, 2_000_000_000), roomy);
    expect(charge).toEqual({
      usage: usage(12, 50),
      costNanos: 12 * 150 + 50 * 3_000,
      uncappedNanos: 12 * 150 + 2_000_000_000 * 3_000,
      capped: true,
    });
  });

  it('holds a cost past the reservation to the reservation, and says it was capped', () => {
    const charge = capCharge(route, usage(1_000_000, 5), { ...roomy, reservedNanos: 20_000 });
    expect(charge).toMatchObject({ usage: usage(1_000_000, 5), costNanos: 20_000, capped: true });
  });

  it('says capped for a completion held to max_tokens even when the completion is free', () => {
    const free = { ...route, completionNanos: 0 };
    const charge = capCharge(free, usage(12, 51), roomy);
    expect(charge).toMatchObject({ usage: usage(12, 50), costNanos: 12 * 150, capped: true });
  });
});

describe('the reservation of cache writes, at their own price', () => {
  const cached: ModelRoute = {
    ...route,
    promptNanos: 1_000,
    cacheReadNanos: 100,
    cacheWriteNanos: 1_250,
    cacheWriteHourNanos: 2_000,
  };
  const written = (tokens: number, hour: number) => ({
    promptTokens: tokens,
    completionTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: tokens,
    cacheWriteHourTokens: hour,
  });

  it('covers a prompt written whole to the cache, never capping the charge it reserved for', () => {
    // The worst an upstream can bill a 1,000-token prompt the request asked to cache for an hour.
    const reserved = 1_000 * worstPromptNanos(cached, '1h', false);
    const charge = capCharge(cached, written(1_000, 1_000), {
      maxOutputTokens: 0,
      reservedNanos: reserved,
    });
    expect(charge).toMatchObject({ costNanos: 1_000 * 2_000, capped: false });
    const fiveMinutes = 1_000 * worstPromptNanos(cached, '5m', false);
    expect(
      capCharge(cached, written(1_000, 0), { maxOutputTokens: 0, reservedNanos: fiveMinutes }),
    ).toMatchObject({ costNanos: 1_000 * 1_250, capped: false });
  });

  it('prices a prompt at the write price the request can incur, and no dearer', () => {
    expect(worstPromptNanos(cached, '1h', false)).toBe(2_000);
    expect(worstPromptNanos(cached, '5m', false)).toBe(1_250);
    // No breakpoint: Anthropic writes nothing; an upstream that caches on its own may.
    expect(worstPromptNanos(cached, 'none', false)).toBe(1_000);
    expect(worstPromptNanos(cached, 'none', true)).toBe(1_250);
    // An hour asked of a model without its own one-hour price is written at the write price.
    const { cacheWriteHourNanos: _hour, ...noHourPrice } = cached;
    expect(worstPromptNanos(noHourPrice, '1h', false)).toBe(1_250);
    // Writes cheaper than the prompt (OpenAI's are free) never lower it.
    expect(worstPromptNanos({ ...route, cacheWriteNanos: 0 }, '5m', true)).toBe(150);
  });
});
