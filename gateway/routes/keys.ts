/**
 * `/v1/keys`: an account key manages its child keys (OpenRouter's provisioning keys as anchor):
 * `GET` lists them (masked), `POST` creates an allocated or shared child and shows its full key
 * once, `GET/PATCH/DELETE /v1/keys/{id}` shows, changes and revokes one, `POST …/rotate` gives
 * it a new secret (once; the old one stops at once), `GET …/events` lists its audited changes.
 * A child key gets 403; a key that is not the caller's child is 404. An allocated child's limit
 * is given from the account's own limit (see KeyAdmin).
 */
import { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import { GatewayError } from '../errors';
import type { Router } from '../http/router';
import type { KeyActor } from '../keys/key-admin';
import { addKeyManagementRoutes, createFields } from './key-management';
import type { GatewayParts } from './route-kit';

const createChildSchema = z.strictObject({
  kind: z.enum(['allocated_child', 'shared_child']),
  ...createFields,
  /** The id of the child this key replaces (a rotation): its history says "rotated from …". */
  replaces: z.string().min(1).max(64).optional(),
});

export function addKeyRoutes(router: Router, parts: GatewayParts): void {
  addKeyManagementRoutes(router, parts, {
    prefix: '/v1/keys',
    authorize: async ({ request, url }) => {
      const key = await authenticate(request, url, 'chat_completions', parts.registry);
      if (key.kind !== 'account') {
        throw new GatewayError(
          403,
          'permission_denied',
          'authentication',
          `Only an account key manages child keys; this is ${key.kind === 'shared_child' ? 'a shared' : 'an allocated'} child key. Ask the owner of its account key.`,
        );
      }
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
      replacesId: body.replaces,
    }),
  });
}
