/**
 * `GET /v1/key`: the presented key's state, as a companion to the balance (whose shape is fixed:
 * clients already read it). It says what the balance cannot: that a key is refused because of its
 * parent (`state: "blocked"` with `blocked_by`), without a paid probe. Never shows the parent's
 * key.
 */
import { authenticate } from '../auth/authenticate';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { keyStatus } from '../keys/key-state';
import { withErrors, type GatewayParts } from './route-kit';

export function addKeyStatusRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'GET',
    '/v1/key',
    withErrors(chatErrorBody, async ({ request, response, url }) => {
      const presented = await authenticate(request, url, 'chat_completions', parts.registry);
      const key = parts.registry.get(presented.id) ?? presented;
      const status = keyStatus(
        key,
        parts.registry.get(key.parentId),
        Math.floor(Date.now() / 1000),
      );
      sendJson(
        response,
        200,
        {
          object: 'key',
          id: key.id,
          key: key.masked,
          name: key.name,
          identity: key.kind,
          state: status.state,
          can_spend: status.state === 'active',
          blocked_by: status.blockedBy,
          expires_at: key.expiresAt,
        },
        { 'cache-control': 'no-store' },
      );
    }),
  );
}
