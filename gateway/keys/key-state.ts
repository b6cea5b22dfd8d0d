/**
 * Whether a key may run inference now (spec section 3). Pure: given the key, its parent and the
 * time, it says which state stops the request, with a message a person can act on.
 */
import { GatewayError } from '../errors';
import type { KeyRow } from '../store/store';

export const isExpired = (key: KeyRow, nowSeconds: number) =>
  key.expiresAt !== null && key.expiresAt <= nowSeconds;

export const remainingNanos = (key: KeyRow) => Math.max(key.limitNanos - key.consumptionNanos, 0);

const advice = 'Inspect the key state and balance (GET /v1/balance); do not retry unchanged.';

/** Spec: a parent that cannot be used stops its children (allocated: disabled or expired). */
const parentUnusable = (parent: KeyRow | undefined, nowSeconds: number) =>
  !parent || parent.revokedAt !== null || parent.disabled || isExpired(parent, nowSeconds);

/**
 * Returns the 402 that stops `key`, or null when it may spend. A shared child spends its
 * parent's money, so it also stops when the parent is depleted.
 */
export function inferenceRefusal(
  key: KeyRow,
  parent: KeyRow | undefined,
  nowSeconds: number,
): GatewayError | null {
  if (isExpired(key, nowSeconds)) {
    const when = new Date(key.expiresAt! * 1000).toISOString();
    return new GatewayError(402, 'key_expired', 'authentication', `This key expired at ${when}. ${advice}`);
  }
  if (key.disabled) {
    return new GatewayError(402, 'key_disabled', 'authentication', `This key is disabled. ${advice}`);
  }
  if (key.kind !== 'account' && parentUnusable(parent, nowSeconds)) {
    return new GatewayError(
      402,
      'parent_key_unavailable',
      'authentication',
      `This key's parent key is disabled or expired, so this key cannot run requests. ${advice}`,
    );
  }
  const funding = key.kind === 'shared_child' ? parent! : key;
  if (remainingNanos(funding) === 0) {
    const whose = key.kind === 'shared_child' ? "The parent key's balance" : "This key's balance";
    return new GatewayError(
      402,
      'key_depleted',
      'admission',
      `${whose} is used up (remaining_usd is 0). ${advice}`,
    );
  }
  return null;
}
