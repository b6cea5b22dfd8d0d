/**
 * The gateway's `GET /v1/key`: a key's state as the gateway decides it, including a refusal
 * because of its parent, which the balance object does not report as a field of its
 * own. It costs nothing. A gateway without the route (it is this project's addition) answers
 * 404, and the workbench then derives the state from the balance alone.
 */
import { keyStatusSchema, type KeyStatus } from '../../contract/gateway';
import type { BalanceView } from '../../contract/workbench-api';
import type { WorkbenchContext } from '../core/context';
import { gatewayCallFailure } from '../core/errors';
import { GatewayCallError, type CollectedResponse } from '../core/gateway-client';

/** Why a key is blocked, in a few words, for each reason the gateway gives. */
const blockedSummaries: Record<string, string> = {
  parent_disabled: 'its parent key is disabled',
  parent_expired: 'its parent key has expired',
  parent_revoked: 'its parent key was revoked',
  parent_missing: 'its parent key no longer exists',
  parent_depleted: 'its parent key’s balance is used up',
};

/** The view's `blocked_by`: the gateway's reason and a few words for it. */
export function blockedByOf(status: KeyStatus | null): BalanceView['blocked_by'] {
  const reason = status?.blocked_by?.reason;
  if (!reason) return null;
  return { reason, summary: blockedSummaries[reason] ?? 'its parent key cannot be used' };
}

/**
 * Fetches `GET /v1/key` for a key: its status, or null when the gateway does not give one (no
 * such route, another refusal, another shape), so the balance decides alone. Only a gateway
 * that cannot be reached throws, as the balance call beside it does.
 */
export async function fetchKeyStatus(
  context: WorkbenchContext,
  key: string,
  options: { signal?: AbortSignal; firstByteTimeoutMs?: number } = {},
): Promise<KeyStatus | null> {
  let answer: CollectedResponse;
  try {
    answer = await context.gateway.collect({ method: 'GET', path: '/v1/key', key, ...options });
  } catch (error) {
    if (error instanceof GatewayCallError) throw gatewayCallFailure(error, context.mode);
    throw error;
  }
  if (answer.status < 200 || answer.status >= 300) return null;
  const parsed = answer.json ? keyStatusSchema.safeParse(answer.json.value) : null;
  if (!parsed?.success) return null;
  return parsed.data;
}
