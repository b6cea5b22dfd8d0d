/**
 * `/v1/keys`: an account key manages its child keys (list, create, show, change, revoke, rotate,
 * events); a child key gets 403, a key that is not the caller's child 404. Who may act when:
 * docs/keys-and-money.md ("Keys, states and money").
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import { GatewayError } from '../errors';
import type { KeyActor } from '../keys/key-admin';
import { ownStateRefusal } from '../keys/key-state';
import type { KeyRow } from '../store/store';
import { addKeyManagementRoutes, createFields, keyManagementDocs } from './key-management';
import type { RouteFamily } from './route-doc';
import type { GatewayParts } from './route-kit';

/**
 * The 402 that stops a disabled or expired account key from changing its children, or null: the
 * type its inference refusal has, with a message about managing. Only those two states: a
 * depleted account key may still manage, and an account key has no parent to be stopped by.
 */
function managementRefusal(
  key: KeyRow,
  nowSeconds: number,
  what = 'child keys',
): GatewayError | null {
  const cannot = `so it cannot create, change, rotate or revoke ${what} (listing and showing them still work).`;
  return ownStateRefusal(key, nowSeconds, {
    expired: (when) =>
      `This key expired at ${when}, ${cannot} Ask the operator to extend its expiry.`,
    disabled: `This key is disabled, ${cannot} Ask the operator to enable it.`,
  });
}

/**
 * The account key a management request presents: a child key gets 403 (it manages nothing), and
 * a disabled or expired account key gets 402 for any change (not for GETs). `what` names what is
 * managed, for the messages ("manages child keys", "manages webhooks").
 */
export async function authorizeAccount(
  parts: Pick<GatewayParts, 'clock' | 'registry'>,
  { request, url }: { request: IncomingMessage; url: URL },
  what: string,
): Promise<KeyRow> {
  const presented = await authenticate(request, url, 'chat_completions', parts.registry);
  // The registry's row: a key disabled a moment ago is refused by the very next request.
  const key = parts.registry.get(presented.id) ?? presented;
  if (key.kind !== 'account') {
    throw new GatewayError({
      status: 403,
      type: 'permission_denied',
      stage: 'authentication',
      message: `Only an account key ${what}; this is ${key.kind === 'shared_child' ? 'a shared' : 'an allocated'} child key. Ask the owner of its account key.`,
    });
  }
  if (request.method !== 'GET') {
    const refusal = managementRefusal(key, parts.clock.nowSeconds(), what.replace(/^manages /, ''));
    if (refusal) throw refusal;
  }
  return key;
}

const createChildSchema = z.strictObject({
  kind: z.enum(['allocated_child', 'shared_child']),
  ...createFields,
  /** The id of the child this key replaces (a rotation): its history says "rotated from …". */
  replaces: z.string().min(1).max(64).optional(),
});

const docs = keyManagementDocs({
  prefix: '/v1/keys',
  tag: 'Key management',
  operationPrefix: '',
  metricsRoute: 'keys',
  noun: 'child key',
  auth: 'chat_completions',
  createSchema: createChildSchema,
  // A child key gets 403; a stopped account key's changes get 402.
  callerErrors: [401, 403],
  writeErrors: [402],
});

export const keyRoutes: RouteFamily<'admin' | 'clock' | 'registry'> = {
  routes: Object.values(docs),
  add(router, parts) {
    addKeyManagementRoutes(router, parts, {
      docs,
      authorize: async (context) => {
        const key = await authorizeAccount(parts, context, 'manages child keys');
        return {
          actor: key.id as KeyActor,
          reaches: (candidate) => candidate.parentId === key.id,
          listFilter: { parentId: key.id },
        };
      },
      createSchema: createChildSchema,
      createInput: (body, manager) => ({
        kind: body.kind,
        parentId: manager.listFilter.parentId,
        name: body.name,
        limitUsd: body.limit_usd,
        graceUsd: body.grace_usd,
        expiresAt: body.expires_at,
        limitReset: body.limit_reset,
        allowedModels: body.allowed_models,
        replacesId: body.replaces,
      }),
    });
  },
};
