/**
 * `GET /v1/activity?days=N`: requests, prompt and completion tokens and cost per UTC day and
 * model over the last N days (today included; 30 by default, at most 90), days without requests
 * included. An account key's figures include its children's; `key_id` narrows to one of them.
 */
import { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import { GenerationRecords, MAX_ACTIVITY_DAYS } from '../billing/generation-records';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { parseOrRefuse, queryOf, withErrors, type GatewayParts } from './route-kit';

const activityQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(MAX_ACTIVITY_DAYS).default(30),
  key_id: z.string().min(1).max(200).optional(),
});

export function addActivityRoutes(router: Router, parts: GatewayParts): void {
  const records = new GenerationRecords(parts.store, parts.registry);
  router.add(
    'GET',
    '/v1/activity',
    withErrors(chatErrorBody, async ({ request, response, url }) => {
      const key = await authenticate(request, url, 'chat_completions', parts.registry);
      const query = parseOrRefuse(activityQuerySchema, queryOf(url), 'query parameter');
      const now = Math.floor(Date.now() / 1000);
      sendJson(response, 200, await records.activity(key, query.days, now, query.key_id), {
        'cache-control': 'no-store',
      });
    }),
  );
}
