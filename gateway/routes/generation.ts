/**
 * Generation records: `GET /v1/generation?id=<trace id>`, one record, and `GET /v1/generations`,
 * the key's records newest first in pages. A key sees its own records; an account key also its
 * children's, each marked with the child. To any other key a record does not exist (404), so ids
 * cannot be probed.
 */
import { z } from 'zod';
import { generationListSchema, generationRecordSchema } from '../../contract/gateway';
import { authenticate } from '../auth/authenticate';
import { GenerationRecords, MAX_PAGE } from '../billing/generation-records';
import { invalidRequest } from '../errors';
import { sendJson } from '../http/respond';
import { chatErrorBody } from '../forms/openai/error-shape';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { decodeCursor, encodeCursor, parseOrRefuse, queryOf, withErrors } from './route-kit';

const recordQuerySchema = z.object({
  id: z.string().min(1).meta({ description: "The request's trace id: its cf-ray header." }),
});

const unixSeconds = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The listing's query; other parameters (`key`) are not its business. */
const listQuerySchema = z.object({
  model: z.string().min(1).max(200).optional(),
  /** Only one agent session's records. */
  session_id: z.string().min(1).max(200).optional(),
  /** Only one batch's records (docs/batches.md). */
  batch_id: z.string().min(1).max(200).optional(),
  outcome: z.enum(['completed', 'ended_early']).optional(),
  /** Unix seconds, inclusive. */
  from: unixSeconds.optional(),
  /** Unix seconds, exclusive. */
  to: unixSeconds.optional(),
  key_id: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  cursor: z.string().max(200).optional(),
});

const getGeneration: RouteDoc = {
  operationId: 'getGeneration',
  metricsRoute: 'generation',
  method: 'GET',
  path: '/v1/generation',
  summary: 'The generation record of one request',
  description: 'Visible to the key that made the request and to its account key; 404 to others.',
  tag: 'Usage',
  auth: 'chat_completions',
  query: recordQuerySchema,
  responses: { 200: jsonContent('The record.', named('Generation', generationRecordSchema)) },
  errors: { form: 'gateway', statuses: [400, 401, 404] },
};

const listGenerations: RouteDoc = {
  operationId: 'listGenerations',
  metricsRoute: 'generation',
  method: 'GET',
  path: '/v1/generations',
  summary: "The key's generation records",
  description:
    "Newest first, in pages (`next_cursor`); an account key's include its children's records.",
  tag: 'Usage',
  auth: 'chat_completions',
  query: listQuerySchema,
  responses: {
    200: jsonContent('A page of records.', named('GenerationList', generationListSchema)),
  },
  errors: { form: 'gateway', statuses: [400, 401, 404] },
};

export const generationRoutes: RouteFamily<'registry' | 'store'> = {
  routes: [getGeneration, listGenerations],
  add(router, parts) {
    const records = new GenerationRecords(parts.store, parts.registry);

    addRoute(
      router,
      getGeneration,
      withErrors(chatErrorBody, async ({ request, response, url }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        const query = recordQuerySchema.safeParse(queryOf(url));
        if (!query.success)
          throw invalidRequest(
            "Invalid field 'id': give the request's trace id (its cf-ray) as ?id=.",
          );
        sendJson(response, 200, await records.get(key, query.data.id));
      }),
    );

    addRoute(
      router,
      listGenerations,
      withErrors(chatErrorBody, async ({ request, response, url }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        const query = parseOrRefuse(listQuerySchema, queryOf(url), 'query parameter');
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
        const page = await records.page(
          key,
          {
            model: query.model,
            sessionId: query.session_id,
            batchId: query.batch_id,
            outcome: query.outcome,
            from: query.from,
            to: query.to,
            keyId: query.key_id,
          },
          query.limit,
          after && { createdAt: after[0]!, seq: after[1]! },
        );
        sendJson(
          response,
          200,
          {
            object: 'list',
            data: page.data,
            has_more: page.next !== null,
            next_cursor: page.next && encodeCursor([page.next.createdAt, page.next.seq]),
          },
          { 'cache-control': 'no-store' },
        );
      }),
    );
  },
};
