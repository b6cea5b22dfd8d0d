/**
 * `GET /v1/key`: the presented key's state, as a companion to the balance (whose shape is fixed:
 * clients already read it). It says what the balance cannot: that a key is refused because of its
 * parent (`state: "blocked"` with `blocked_by`), without a paid probe. Never shows the parent's
 * key.
 */
import { keyStatusSchema } from '../../contract/gateway';
import { authenticate } from '../auth/authenticate';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import { allowedModelFields, keyStatus } from '../keys/key-state';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { withErrors } from './route-kit';

const getKeyStatus: RouteDoc = {
  operationId: 'getKeyStatus',
  metricsRoute: 'key',
  method: 'GET',
  path: '/v1/key',
  summary: "The key's state",
  description: 'Free: whether the key can spend, and if not why (`blocked_by` for a parent).',
  tag: 'Keys',
  auth: 'chat_completions',
  responses: { 200: jsonContent("The key's state.", named('KeyStatus', keyStatusSchema)) },
  errors: { form: 'gateway', statuses: [401] },
};

export const keyStatusRoutes: RouteFamily<'clock' | 'registry'> = {
  routes: [getKeyStatus],
  add(router, parts) {
    addRoute(
      router,
      getKeyStatus,
      withErrors(chatErrorBody, async ({ request, response, url }) => {
        const presented = await authenticate(request, url, 'chat_completions', parts.registry);
        const key = parts.registry.get(presented.id) ?? presented;
        const parent = parts.registry.get(key.parentId);
        const status = keyStatus(key, parent, parts.clock.nowSeconds());
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
            ...allowedModelFields(key, parent),
          },
          { 'cache-control': 'no-store' },
        );
      }),
    );
  },
};
