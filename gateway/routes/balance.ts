/**
 * `GET /v1/balance`: the presented key's balance projection and state. Answers
 * 200 also for expired and disabled keys; the caller checks both flags before permitting work.
 */
import { balanceSchema } from '../../contract/gateway';
import { authenticate } from '../auth/authenticate';
import { nanosToUsd } from '../shared/money';
import { moneyFigures } from '../keys/key-admin';
import { allowedModelFields, isExpired, remainingNanos } from '../keys/key-state';
import { periodSpend } from '../keys/budget-period';
import { periodFields } from '../keys/key-admin';
import { sendJson } from '../http/respond';
import type { KeyRow } from '../store/store';
import { chatErrorBody } from '../forms/openai/error-shape';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { withErrors, type GatewayParts } from './route-kit';

const getBalance: RouteDoc = {
  operationId: 'getBalance',
  metricsRoute: 'balance',
  method: 'GET',
  path: '/v1/balance',
  summary: "The key's balance and state",
  description: 'Free. Answers 200 also for expired and disabled keys: check both flags.',
  tag: 'Keys',
  auth: 'chat_completions',
  responses: { 200: jsonContent('The balance.', named('Balance', balanceSchema)) },
  errors: { form: 'gateway', statuses: [401] },
};

export const balanceRoutes: RouteFamily<'clock' | 'config' | 'registry' | 'store'> = {
  routes: [getBalance],
  add(router, parts) {
    addRoute(
      router,
      getBalance,
      withErrors(chatErrorBody, async ({ request, response, url }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        sendJson(response, 200, await balanceOf(key, parts), { 'cache-control': 'no-store' });
      }),
    );
  },
};

export async function balanceOf(
  key: KeyRow,
  parts: Pick<GatewayParts, 'clock' | 'config' | 'registry' | 'store'>,
) {
  const { registry } = parts;
  // A shared child spends, and so reports, its parent's money (never the parent's key).
  const funding = registry.fundingKeyOf(key);
  // limit = recharge + credit - allocated for an account; an allocated child's limit is its
  // allocation (docs/keys-and-money.md).
  const money = await moneyFigures(parts.store, funding);
  const spend = periodSpend(funding, await parts.store.pendingFor(funding.id));
  const lagSeconds = Math.round(parts.config.settleIntervalMs / 1000);
  const notes = [
    `consumption_usd settles asynchronously (here about every ${lagSeconds || 1} s; in general it can lag recent requests by several minutes), so remaining_usd can be higher than what is really left: pending_usd is what was charged and not settled yet, remaining_usd - pending_usd what is left.`,
    'grace_usd is a small admission allowance, not spendable balance, and is never part of remaining_usd.',
  ];
  if (key.kind === 'shared_child') {
    notes.push(
      "This is a shared child key: the figures are its parent key's balance, which it spends. The parent key is not shown.",
    );
  }
  return {
    object: 'balance',
    key: key.masked,
    identity: key.kind,
    remaining_usd: nanosToUsd(remainingNanos(funding)),
    limit_usd: nanosToUsd(funding.limitNanos),
    recharge_usd: nanosToUsd(money.recharge),
    credit_usd: nanosToUsd(money.credit),
    allocated_usd: nanosToUsd(money.allocated),
    consumption_usd: nanosToUsd(spend.settled),
    pending_usd: nanosToUsd(spend.pending),
    grace_usd: nanosToUsd(funding.graceNanos),
    ...periodFields(funding),
    ...allowedModelFields(key, registry.get(key.parentId)),
    expires_at: key.expiresAt,
    expired: isExpired(key, parts.clock.nowSeconds()),
    disabled: key.disabled,
    settlement: 'asynchronous',
    note: notes.join(' '),
  };
}
