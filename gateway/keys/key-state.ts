/**
 * Whether a key may run inference now (docs/keys-and-money.md, the states). Pure: given the key,
 * its parent and the time, it says which state stops the request, with a message a person can act
 * on.
 */
import { GatewayError } from '../errors';
import type { KeyRow } from '../store/store';
import { periodDue, periodSpend } from './budget-period';
import { keyAllows } from '../../contract/model-patterns';

export const isExpired = (key: KeyRow, nowSeconds: number) =>
  key.expiresAt !== null && key.expiresAt <= nowSeconds;

/** The seed's `max(limit - consumption, 0)`, with the current period's consumption for a periodic key. */
export const remainingNanos = (key: KeyRow) =>
  Math.max(key.limitNanos - periodSpend(key, 0).settled, 0);

/**
 * The lists that decide which models a key may use, as the balance and `GET /v1/key` show them:
 * its own and its parent's (null: no list); a model must be allowed by both.
 */
export const allowedModelFields = (key: KeyRow, parent: KeyRow | undefined) => ({
  allowed_models: key.allowedModels,
  parent_allowed_models: parent?.allowedModels ?? null,
});

/** Whether any list limits the key (otherwise it may use every model). */
export const hasModelLimits = (key: KeyRow, parent: KeyRow | undefined) =>
  key.allowedModels !== null || (parent?.allowedModels ?? null) !== null;

/**
 * The 403 for a model the key may not use, or null: checked before anything is reserved or sent.
 * Both the key's own list and its parent's must allow it.
 */
export function modelRefusal(
  key: KeyRow,
  parent: KeyRow | undefined,
  modelId: string,
): GatewayError | null {
  if (keyAllows(key.allowedModels, parent?.allowedModels, modelId)) return null;
  const lists = [key.allowedModels, parent?.allowedModels]
    .filter((list): list is string[] => list !== null && list !== undefined)
    .map((list) => list.join(', '));
  return new GatewayError({
    status: 403,
    type: 'permission_denied',
    stage: 'admission',
    message: `This key may not use ${modelId}: it allows only ${lists.join(', and of those only ')}. Pick one of those (GET /v1/models lists what this key may use), or ask the key's owner to allow it.`,
  });
}

const advice = 'Inspect the key state and balance (GET /v1/balance); do not retry unchanged.';

/** Spec: a parent that cannot be used stops its children (allocated: disabled or expired). */
const parentUnusable = (parent: KeyRow | undefined, nowSeconds: number) =>
  !parent || parent.revokedAt !== null || parent.disabled || isExpired(parent, nowSeconds);

/**
 * The 402 for a key stopped by its own state (expired, then disabled), or null: one type and
 * stage for every route that refuses it, each route saying in its own words what is refused.
 */
export function ownStateRefusal(
  key: KeyRow,
  nowSeconds: number,
  messages: { expired: (when: string) => string; disabled: string },
): GatewayError | null {
  if (isExpired(key, nowSeconds)) {
    const when = new Date(key.expiresAt! * 1000).toISOString();
    return new GatewayError({
      status: 402,
      type: 'key_expired',
      stage: 'authentication',
      message: messages.expired(when),
    });
  }
  if (key.disabled) {
    return new GatewayError({
      status: 402,
      type: 'key_disabled',
      stage: 'authentication',
      message: messages.disabled,
    });
  }
  return null;
}

/**
 * Returns the 402 that stops `key`, or null when it may spend. A shared child spends its
 * parent's money, so it also stops when the parent is depleted.
 */
export function inferenceRefusal(
  key: KeyRow,
  parent: KeyRow | undefined,
  nowSeconds: number,
): GatewayError | null {
  const own = ownStateRefusal(key, nowSeconds, {
    expired: (when) => `This key expired at ${when}. ${advice}`,
    disabled: `This key is disabled. ${advice}`,
  });
  if (own) return own;
  if (key.kind !== 'account' && parentUnusable(parent, nowSeconds)) {
    return new GatewayError({
      status: 402,
      type: 'parent_key_unavailable',
      stage: 'authentication',
      message: `This key's parent key is disabled or expired, so this key cannot run requests. ${advice}`,
    });
  }
  const funding = key.kind === 'shared_child' ? parent! : key;
  // A period that has ended is about to start again (admission rolls it before it reserves).
  if (remainingNanos(funding) === 0 && !periodDue(funding, nowSeconds)) {
    const whose = key.kind === 'shared_child' ? "The parent key's balance" : "This key's balance";
    return new GatewayError({
      status: 402,
      type: 'key_depleted',
      stage: 'admission',
      message: `${whose} is used up (remaining_usd is 0). ${advice}`,
    });
  }
  return null;
}

export type KeyStateName = 'active' | 'expired' | 'disabled' | 'depleted' | 'blocked';

export type BlockedBy = {
  reason:
    'parent_disabled' | 'parent_expired' | 'parent_revoked' | 'parent_missing' | 'parent_depleted';
  message: string;
};

/**
 * The key's state as a caller sees it, including what the balance object does not report as its
 * own field: a child refused because of its parent. Pure, like `inferenceRefusal`, and
 * always agreeing with it: `state` is `active` exactly when the key may spend.
 */
export function keyStatus(
  key: KeyRow,
  parent: KeyRow | undefined,
  nowSeconds: number,
): { state: KeyStateName; blockedBy: BlockedBy | null } {
  const refusal = inferenceRefusal(key, parent, nowSeconds);
  if (refusal === null) return { state: 'active', blockedBy: null };
  switch (refusal.type) {
    case 'key_expired':
      return { state: 'expired', blockedBy: null };
    case 'key_disabled':
      return { state: 'disabled', blockedBy: null };
    case 'key_depleted':
      return key.kind === 'shared_child'
        ? {
            state: 'depleted',
            blockedBy: {
              reason: 'parent_depleted',
              message:
                "The parent key's balance is used up; this shared child spends it. Add balance to the parent key.",
            },
          }
        : { state: 'depleted', blockedBy: null };
    default: {
      const reason: BlockedBy['reason'] = !parent
        ? 'parent_missing'
        : parent.revokedAt !== null
          ? 'parent_revoked'
          : parent.disabled
            ? 'parent_disabled'
            : 'parent_expired';
      const what = {
        parent_missing: 'no longer exists',
        parent_revoked: 'was revoked',
        parent_disabled: 'is disabled',
        parent_expired: 'has expired',
        parent_depleted: 'is used up',
      }[reason];
      return {
        state: 'blocked',
        blockedBy: {
          reason,
          message: `This key's parent key ${what}, so this key cannot run requests. Ask the parent key's owner to ${reason === 'parent_expired' ? 'extend its expiry' : reason === 'parent_disabled' ? 'enable it' : 'issue you a new key'}.`,
        },
      };
    }
  }
}
