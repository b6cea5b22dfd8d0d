/**
 * Key rows and worst cases for tests of admission and settlement, without a store: an account key
 * with a 0.001 USD limit unless told otherwise.
 */
import type { Worstcase } from '../../gateway/billing/budget';
import type { KeyRow } from '../../gateway/store/store';

export const keyRowFixture = (overrides: Partial<KeyRow> = {}): KeyRow => ({
  id: 'key_a',
  kind: 'account',
  parentId: null,
  name: 'a',
  digest: 'v1$digest',
  masked: 'sk-…',
  limitNanos: 1_000_000,
  graceNanos: 0,
  consumptionNanos: 0,
  expiresAt: null,
  disabled: false,
  revokedAt: null,
  createdAt: 0,
  rpmLimit: null,
  tpmLimit: null,
  replacesId: null,
  limitReset: 'none',
  periodStartedAt: null,
  periodBaseNanos: 0,
  allowedModels: null,
  ...overrides,
});

/** A request with a prompt of 10 tokens at 1000 nanos and up to `tokens` output at 3000. */
export const worstcaseFixture = (tokens: number): Worstcase => ({
  nanos: 10_000 + tokens * 3_000,
  promptNanos: 10_000,
  completionTokenNanos: 3_000,
  maxOutputTokens: tokens,
});
