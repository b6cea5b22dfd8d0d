/**
 * `GET /v1/activity?days=N`: requests, prompt and completion tokens and cost per UTC day and
 * model over the last N days (today included; 30 by default, at most 90), days without requests
 * included. An account key's figures include its children's; `key_id` narrows to one of them.
 */
import { z } from 'zod';
import { activitySchema, sessionActivitySchema } from '../../contract/gateway';
import { authenticate } from '../auth/authenticate';
import { GenerationRecords, MAX_ACTIVITY_DAYS } from '../billing/generation-records';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, queryOf, withErrors } from './route-kit';

const activityQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(MAX_ACTIVITY_DAYS).default(30),
  key_id: z.string().min(1).max(200).optional(),
});

const getSessions: RouteDoc = {
  operationId: 'getSessionActivity',
  metricsRoute: 'activity',
  method: 'GET',
  path: '/v1/activity/sessions',
  summary: 'Agent sessions',
  description:
    "The agent sessions of the last N days (requests whose client named one: X-Claude-Code-Session-Id, Codex's session_id…), the latest active first, with each one's requests, time, tokens, cache hits and cost.",
  tag: 'Usage',
  auth: 'chat_completions',
  query: activityQuerySchema,
  responses: {
    200: jsonContent('The sessions of the range.', named('SessionActivity', sessionActivitySchema)),
  },
  errors: { form: 'gateway', statuses: [400, 401, 404] },
};

const getActivity: RouteDoc = {
  operationId: 'getActivity',
  metricsRoute: 'activity',
  method: 'GET',
  path: '/v1/activity',
  summary: 'Usage per day and model',
  description:
    "Requests, tokens and cost per UTC day and model; an account key's include its children's.",
  tag: 'Usage',
  auth: 'chat_completions',
  query: activityQuerySchema,
  responses: { 200: jsonContent('The days of the range.', named('Activity', activitySchema)) },
  errors: { form: 'gateway', statuses: [400, 401, 404] },
};

export const activityRoutes: RouteFamily<'registry' | 'store'> = {
  routes: [getActivity, getSessions],
  add(router, parts) {
    const records = new GenerationRecords(parts.store, parts.registry);
    // Both answer for the caller's key over the last `days`, from the same query.
    const over = (doc: RouteDoc, read: 'activity' | 'sessions') =>
      addRoute(
        router,
        doc,
        withErrors(chatErrorBody, async ({ request, response, url }) => {
          const key = await authenticate(request, url, 'chat_completions', parts.registry);
          const query = parseOrRefuse(activityQuerySchema, queryOf(url), 'query parameter');
          const now = Math.floor(Date.now() / 1000);
          sendJson(response, 200, await records[read](key, query.days, now, query.key_id), {
            'cache-control': 'no-store',
          });
        }),
      );
    over(getActivity, 'activity');
    over(getSessions, 'sessions');
  },
};
