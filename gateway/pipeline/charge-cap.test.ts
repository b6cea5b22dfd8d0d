/**
 * The charge held to what was reserved, and the record's `charge_capped` saying so whenever the
 * charge is less than the usage would have cost, for either reason.
 */
import type { ModelRoute } from '../providers/provider';
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
