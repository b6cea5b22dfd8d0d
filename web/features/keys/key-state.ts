/** How each key state reads on the page, and the state to show now. */
import type { BalanceView, KeyState } from '../../../contract/workbench-api';
import type { BadgeTone } from '../../components/badge';
import { usdToNanos } from '../../../contract/usd-nanos';

/** A key's state as the key-management routes list it: a balance's state, or revoked. */
export type ManagedKeyState = KeyState | 'revoked';

export const keyStateLabels: Record<ManagedKeyState, string> = {
  active: 'Active',
  expired: 'Expired',
  disabled: 'Disabled',
  depleted: 'Depleted',
  blocked: 'Blocked',
  revoked: 'Revoked',
};

export const keyStateTones: Record<ManagedKeyState, BadgeTone> = {
  active: 'green',
  expired: 'amber',
  disabled: 'neutral',
  depleted: 'red',
  blocked: 'red',
  revoked: 'neutral',
};

/** The state word of a listed key, or null for one this page does not know yet. */
export function managedKeyState(state: string): ManagedKeyState | null {
  return Object.hasOwn(keyStateLabels, state) ? (state as ManagedKeyState) : null;
}

/** What the state means for requests, in plain words. */
export const keyStateMeanings: Record<KeyState, string> = {
  active: 'Requests are served while balance remains.',
  expired: 'The key has expired: requests answer HTTP 402.',
  disabled: 'The key is disabled: requests answer HTTP 402.',
  depleted: 'No balance remains: requests answer HTTP 402.',
  blocked:
    'The gateway refuses this key (HTTP 402) although its own figures look usable: its parent key cannot be used.',
};

export const identityLabels: Record<string, string> = {
  account: 'Account key',
  allocated_child: 'Allocated child key',
  shared_child: 'Shared child key',
};

/**
 * What a key has left now: the gateway's `remaining_usd` counts settled charges only, so the
 * charges recorded and not settled yet (`pending_usd`) come off it, exactly in nanos. A gateway
 * that does not say what is pending is taken at its word.
 */
export function leftNow(balance: { remaining_usd: number; pending_usd?: number | undefined }): {
  usd: number;
  pendingUsd: number;
} {
  const pending = Math.max(0, usdToNanos(balance.pending_usd ?? 0));
  const left = Math.max(0, usdToNanos(balance.remaining_usd) - pending);
  return { usd: left / 1e9, pendingUsd: pending / 1e9 };
}

/** Share of the limit still remaining, 0–100; null when there is no limit to compare with. */
export function remainingShare(remaining: number, limit: number): number | null {
  if (!(limit > 0)) return null;
  return Math.min(100, Math.max(0, (remaining / limit) * 100));
}

/**
 * A share as people read it, the same everywhere on the page: one decimal below 10 % (where a
 * tenth still matters), whole numbers above; never "100%" for a balance that is not whole.
 */
export function formatShare(share: number): string {
  if (share > 99 && share < 100) return '99%';
  if (share > 0 && share < 0.1) return '<0.1%';
  return share < 10 ? `${Number(share.toFixed(1))}%` : `${Math.round(share)}%`;
}

/**
 * The state to show now: the BFF's, except that a key whose expiry has passed on this clock is
 * Expired at once, before the next refresh says so (a disabled key stays Disabled: the
 * deliberate decision comes first, as on the gateway).
 */
export function liveKeyState(view: BalanceView, nowMs: number): KeyState {
  if (view.state === 'disabled' || view.state === 'expired') return view.state;
  const expiresAt = view.balance.expires_at;
  if (expiresAt !== null && expiresAt * 1000 <= nowMs) return 'expired';
  return view.state;
}

/** A child key's kind in one word, for tables. */
export const childKindLabels: Record<string, string> = {
  allocated_child: 'Allocated',
  shared_child: 'Shared',
};
