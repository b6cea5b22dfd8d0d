/** `GET /v1/models`: the public catalog. No key needed; a sent key is ignored, not checked. */
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import type { GatewayParts } from './route-kit';

export function addModelRoutes(router: Router, parts: GatewayParts): void {
  router.add('GET', '/v1/models', ({ response }) => {
    sendJson(response, 200, parts.catalog.listBody, { 'cache-control': 'public, max-age=60' });
  });
}
