import type { KeyRow } from '../store/store';
import { keyRowFixture } from '../../testing/upstreams/key-rows';
import { inferenceRefusal, isExpired, remainingNanos } from './key-state';

const NOW = 2_000_000_000;

const row = (overrides: Partial<KeyRow> = {}): KeyRow =>
  keyRowFixture({ id: 'key_x', name: 'x', digest: 'v1$x', limitNanos: 1_000, ...overrides });

const parentOk = row({ id: 'key_parent' });
const child = (kind: KeyRow['kind'], overrides: Partial<KeyRow> = {}) =>
  row({
    id: 'key_child',
    kind,
    parentId: 'key_parent',
    limitNanos: kind === 'shared_child' ? 0 : 1_000,
    ...overrides,
  });

describe('inferenceRefusal', () => {
  it.each<[string, KeyRow, KeyRow | undefined, string | null]>([
    ['an active account', row(), undefined, null],
    ['an account expiring later', row({ expiresAt: NOW + 1 }), undefined, null],
    ['an account expiring now', row({ expiresAt: NOW }), undefined, 'key_expired'],
    ['an expired account', row({ expiresAt: NOW - 10 }), undefined, 'key_expired'],
    ['a disabled account', row({ disabled: true }), undefined, 'key_disabled'],
    [
      'an expired and disabled account (expiry first)',
      row({ disabled: true, expiresAt: 1 }),
      undefined,
      'key_expired',
    ],
    ['a depleted account', row({ consumptionNanos: 1_000 }), undefined, 'key_depleted'],
    [
      'an account past its limit',
      row({ consumptionNanos: 5_000, graceNanos: 10_000 }),
      undefined,
      'key_depleted',
    ],
    ['an active allocated child', child('allocated_child'), parentOk, null],
    [
      'an allocated child of a disabled parent',
      child('allocated_child'),
      row({ id: 'key_parent', disabled: true }),
      'parent_key_unavailable',
    ],
    [
      'an allocated child of an expired parent',
      child('allocated_child'),
      row({ id: 'key_parent', expiresAt: 5 }),
      'parent_key_unavailable',
    ],
    [
      'an allocated child of a revoked parent',
      child('allocated_child'),
      row({ id: 'key_parent', revokedAt: 5 }),
      'parent_key_unavailable',
    ],
    [
      'an allocated child whose parent is missing',
      child('allocated_child'),
      undefined,
      'parent_key_unavailable',
    ],
    [
      'an allocated child of a depleted parent (own money)',
      child('allocated_child'),
      row({ id: 'key_parent', consumptionNanos: 1_000 }),
      null,
    ],
    [
      'a depleted allocated child',
      child('allocated_child', { consumptionNanos: 1_000 }),
      parentOk,
      'key_depleted',
    ],
    [
      'a disabled allocated child of a healthy parent',
      child('allocated_child', { disabled: true }),
      parentOk,
      'key_disabled',
    ],
    [
      'an expired allocated child of a healthy parent',
      child('allocated_child', { expiresAt: 1 }),
      parentOk,
      'key_expired',
    ],
    ['an active shared child', child('shared_child'), parentOk, null],
    [
      'a disabled shared child',
      child('shared_child', { disabled: true }),
      parentOk,
      'key_disabled',
    ],
    ['an expired shared child', child('shared_child', { expiresAt: 1 }), parentOk, 'key_expired'],
    [
      'a shared child of a disabled parent',
      child('shared_child'),
      row({ id: 'key_parent', disabled: true }),
      'parent_key_unavailable',
    ],
    [
      'a shared child of an expired parent',
      child('shared_child'),
      row({ id: 'key_parent', expiresAt: 1 }),
      'parent_key_unavailable',
    ],
    [
      'a shared child of a depleted parent',
      child('shared_child'),
      row({ id: 'key_parent', consumptionNanos: 1_000 }),
      'key_depleted',
    ],
  ])('%s → %s', (_case, key, parent, expected) => {
    const refusal = inferenceRefusal(key, parent, NOW);
    if (expected === null) {
      expect(refusal).toBeNull();
      return;
    }
    expect(refusal?.type).toBe(expected);
    expect(refusal?.status).toBe(402);
    expect(refusal?.message).toMatch(/GET \/v1\/balance/);
  });

  it('names whose balance is used up', () => {
    expect(
      inferenceRefusal(
        child('shared_child'),
        row({ id: 'key_parent', consumptionNanos: 1_000 }),
        NOW,
      )?.message,
    ).toMatch(/parent key's balance/);
    expect(inferenceRefusal(row({ consumptionNanos: 1_000 }), undefined, NOW)?.message).toMatch(
      /This key's balance/,
    );
  });
});

describe('isExpired and remainingNanos', () => {
  it('treats the expiry second as expired and no expiry as never', () => {
    expect(isExpired(row({ expiresAt: NOW }), NOW)).toBe(true);
    expect(isExpired(row({ expiresAt: NOW + 1 }), NOW)).toBe(false);
    expect(isExpired(row(), NOW)).toBe(false);
  });

  it('is max(limit - consumption, 0), never counting grace', () => {
    expect(remainingNanos(row({ limitNanos: 1_000, consumptionNanos: 400, graceNanos: 500 }))).toBe(
      600,
    );
    expect(
      remainingNanos(row({ limitNanos: 1_000, consumptionNanos: 1_300, graceNanos: 500 })),
    ).toBe(0);
  });
});
