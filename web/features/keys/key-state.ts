/** How each key state reads on the page. */
import type { KeyState } from '../../../contract/workbench-api';
import type { BadgeTone } from '../../components/badge';

export const keyStateLabels: Record<KeyState, string> = {
  active: 'Active',
  expired: 'Expired',
  disabled: 'Disabled',
  depleted: 'Depleted',
  blocked: 'Blocked',
};

export const keyStateTones: Record<KeyState, BadgeTone> = {
  active: 'green',
  expired: 'amber',
  disabled: 'neutral',
  depleted: 'red',
  blocked: 'red',
};

/** What the state means for requests, in plain words (spec section 3). */
export const keyStateMeanings: Record<KeyState, string> = {
  active: 'Requests are served while balance remains.',
  expired: 'The key has expired: requests answer HTTP 402.',
  disabled: 'The key is disabled: requests answer HTTP 402.',
  depleted: 'No balance remains: requests answer HTTP 402.',
  blocked:
    'The balance looks usable, but inference answers HTTP 402 (for example, the parent key is disabled or expired).',
};

export const identityLabels: Record<string, string> = {
  account: 'Account key',
  allocated_child: 'Allocated child key',
  shared_child: 'Shared child key',
};

/** Share of the limit still remaining, 0–100; null when there is no limit to compare with. */
export function remainingShare(remaining: number, limit: number): number | null {
  if (!(limit > 0)) return null;
  return Math.min(100, Math.max(0, (remaining / limit) * 100));
}
