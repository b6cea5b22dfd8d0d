/**
 * `/admin/v1/keys`: the operator manages account keys as an account key manages its children
 * (list, create, show, change, rotate, revoke, events), and tops them up:
 * `POST /admin/v1/keys/{id}/recharge` and `/credit` with `{amount_usd, note}`. Each raises the
 * limit by the amount and is a ledger entry and an audit row with the note (see KeyAdmin).
 *
 * Only with `GATEWAY_ADMIN_TOKEN` set: without it these routes do not exist (404). With it, a
 * missing or wrong `Authorization: Bearer <token>` is 401. The token is compared in constant time
 * (digests of equal length), and never logged: request lines carry no headers.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { managedKeySchema } from '../../contract/gateway';
import { GatewayError } from '../errors';
import { sendJson } from '../http/respond';
import {
  addKeyManagementRoutes,
  createFields,
  keyIdParams,
  keyManagementDocs,
  keyPath,
  managed,
  managedKey,
  reachableKey,
  readKeyBody,
  type Manager,
} from './key-management';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse } from './route-kit';

const createAccountSchema = z.strictObject({
  kind: z.literal('account').optional(),
  ...createFields,
});

const topUpSchema = z.strictObject({
  amount_usd: z.number(),
  /** Why: an invoice, a refund, a goodwill credit. */
  note: z.string(),
});

const PREFIX = '/admin/v1/keys';

export const digestOf = (text: string) => crypto.createHash('sha256').update(text).digest();

const unauthorized = (message: string) =>
  new GatewayError({ status: 401, type: 'authentication_error', stage: 'authentication', message });

/** Throws 401 unless the request carries the operator token. */
export function requireOperator(request: IncomingMessage, expected: Buffer): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) {
    throw unauthorized('The operator routes need Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.');
  }
  // Equal-length digests, so the comparison's time says nothing of the token.
  if (!crypto.timingSafeEqual(digestOf(match[1]!), expected)) {
    throw unauthorized('The operator token is wrong.');
  }
}

const docs = keyManagementDocs({
  prefix: PREFIX,
  tag: 'Operator',
  operationPrefix: 'admin',
  metricsRoute: 'admin_keys',
  noun: 'account key',
  auth: 'operator',
  createSchema: createAccountSchema,
  // 404 also for every route here while GATEWAY_ADMIN_TOKEN is unset: they do not exist then.
  callerErrors: [401, 404],
  writeErrors: [],
});

/** `recharge` and `credit`: each raises the limit by the amount, with a note in the audit. */
const topUpDoc = (kind: 'recharge' | 'credit'): RouteDoc => ({
  operationId: kind === 'recharge' ? 'adminRechargeKey' : 'adminCreditKey',
  metricsRoute: 'admin_keys',
  method: 'POST',
  path: `${PREFIX}/{id}/${kind}`,
  summary: kind === 'recharge' ? 'Recharge an account key' : 'Credit an account key',
  description: `Raises its limit by amount_usd; a ledger entry (${kind}) and an audit row with the note.`,
  tag: 'Operator',
  auth: 'operator',
  pathParams: keyIdParams,
  body: named('TopUpRequest', topUpSchema),
  responses: {
    200: jsonContent('The key after the top-up.', named('ManagedKey', managedKeySchema)),
  },
  errors: { form: 'gateway', statuses: [400, 401, 404, 409, 413, 415] },
});

const topUps = { recharge: topUpDoc('recharge'), credit: topUpDoc('credit') };

export const adminKeyRoutes: RouteFamily<'admin' | 'config'> = {
  routes: [...Object.values(docs), ...Object.values(topUps)],
  add(router, parts) {
    const token = parts.config.adminToken;
    if (token === undefined) return;
    const expected = digestOf(token);

    const operator: Manager = {
      actor: 'admin',
      reaches: (key) => key.kind === 'account',
      listFilter: { kind: 'account' },
    };
    const authorize = ({ request }: { request: IncomingMessage }) => {
      requireOperator(request, expected);
      return operator;
    };

    addKeyManagementRoutes(router, parts, {
      docs,
      authorize,
      createSchema: createAccountSchema,
      createInput: (body) => ({
        kind: 'account',
        name: body.name,
        limitUsd: body.limit_usd,
        graceUsd: body.grace_usd,
        expiresAt: body.expires_at,
        limitReset: body.limit_reset,
        allowedModels: body.allowed_models,
      }),
    });

    for (const kind of ['recharge', 'credit'] as const) {
      addRoute(
        router,
        topUps[kind],
        managed(async (context) => {
          const manager = await authorize(context);
          const key = await reachableKey(parts, manager, context.params.id!);
          const body = parseOrRefuse(topUpSchema, await readKeyBody(context.request));
          const summary = await parts.admin.topUp(
            key.id,
            { kind, amountUsd: body.amount_usd, note: body.note },
            manager.actor,
          );
          sendJson(context.response, 200, managedKey(summary), { 'cache-control': 'no-store' });
        }),
        keyPath(PREFIX, `/${kind}`),
      );
    }
  },
};
