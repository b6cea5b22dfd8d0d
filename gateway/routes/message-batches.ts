/**
 * Anthropic's Message Batches API (docs/batches.md): `POST /v1/messages/batches`
 * (`{requests: [{custom_id, params}]}`), `GET /v1/messages/batches(/{id})`, `POST …/{id}/cancel`
 * and `GET …/{id}/results` (JSONL). The same batches as OpenAI's shape, each line run as a
 * Messages request; a batch is seen only by the key that made it.
 * @see https://docs.anthropic.com/en/api/creating-message-batches
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { messageBatchListSchema, messageBatchSchema } from '../../contract/batches';
import { authenticate } from '../auth/authenticate';
import { messageBatchObject, messageResultLine } from '../batches/batch-objects';
import { MESSAGES_ENDPOINT } from '../batches/batch-endpoints';
import { checkRequests, toLineRows } from '../batches/batch-input';
import { invalidRequest } from '../errors';
import { messagesErrorBody } from '../forms/anthropic/error-shape';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import type { BatchRow } from '../store/batches';
import type { KeyRow } from '../store/store';
import { ownBatch, resultLines, startBatch } from './batches';
import { keyPath } from './key-management';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, queryOf, refuseUnusableKey, withErrors } from './route-kit';

const idParams = z.object({
  id: z.string().meta({ examples: ['msgbatch_0123456789abcdef01234567'] }),
});

const createSchema = z.object({
  requests: z
    .array(z.unknown())
    .meta({ description: 'Each `{custom_id, params}`: a Messages request.' }),
});

const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  after_id: z.string().min(1).max(200).optional(),
});

const errors = (...statuses: number[]) => ({ form: 'messages' as const, statuses });
const batchObject = named('MessageBatch', messageBatchSchema);

const docs = {
  createMessageBatch: {
    operationId: 'createMessageBatch',
    metricsRoute: 'batches',
    method: 'POST',
    path: '/v1/messages/batches',
    summary: 'Create a Message Batch',
    description: 'Runs every request in the background, each charged as a request of its own.',
    tag: 'Batches',
    auth: 'messages',
    body: named('MessageBatchCreate', createSchema),
    responses: { 200: jsonContent('The batch, in progress.', batchObject) },
    errors: errors(400, 401, 402, 413),
  },
  getMessageBatch: {
    operationId: 'getMessageBatch',
    metricsRoute: 'batches',
    method: 'GET',
    path: '/v1/messages/batches/{id}',
    summary: 'A Message Batch',
    tag: 'Batches',
    auth: 'messages',
    pathParams: idParams,
    responses: { 200: jsonContent('The batch.', batchObject) },
    errors: errors(401, 404),
  },
  listMessageBatches: {
    operationId: 'listMessageBatches',
    metricsRoute: 'batches',
    method: 'GET',
    path: '/v1/messages/batches',
    summary: "The key's Message Batches",
    tag: 'Batches',
    auth: 'messages',
    query: listQuerySchema,
    responses: {
      200: jsonContent('Newest first.', named('MessageBatchList', messageBatchListSchema)),
    },
    errors: errors(400, 401),
  },
  cancelMessageBatch: {
    operationId: 'cancelMessageBatch',
    metricsRoute: 'batches',
    method: 'POST',
    path: '/v1/messages/batches/{id}/cancel',
    summary: 'Cancel a Message Batch',
    tag: 'Batches',
    auth: 'messages',
    pathParams: idParams,
    responses: { 200: jsonContent('The batch, canceling or ended.', batchObject) },
    errors: errors(401, 404),
  },
  getMessageBatchResults: {
    operationId: 'getMessageBatchResults',
    metricsRoute: 'batches',
    method: 'GET',
    path: '/v1/messages/batches/{id}/results',
    summary: "A Message Batch's results",
    description:
      'JSONL, one `{custom_id, result}` a line, in the order of the requests; once ended.',
    tag: 'Batches',
    auth: 'messages',
    pathParams: idParams,
    responses: { 200: { description: 'JSONL.', content: { 'text/plain': { text: 'JSONL.' } } } },
    errors: errors(400, 401, 404),
  },
} satisfies Record<string, RouteDoc>;

export const messageBatchRoutes: RouteFamily<
  'batchRunner' | 'clock' | 'config' | 'registry' | 'store'
> = {
  routes: Object.values(docs),
  add(router, parts) {
    const handle = (handler: (context: RouteContext, key: KeyRow) => Promise<void>) =>
      withErrors(messagesErrorBody, async (context) =>
        handler(
          context,
          await authenticate(context.request, context.url, 'messages', parts.registry),
        ),
      );
    const origin = (context: RouteContext) =>
      `http://${context.request.headers.host ?? 'localhost'}`;
    const answer = async (context: RouteContext, batch: BatchRow) =>
      sendJson(
        context.response,
        200,
        messageBatchObject(batch, await parts.store.batches.counts(batch.id), origin(context)),
      );

    addRoute(
      router,
      docs.createMessageBatch,
      handle(async (context, key) => {
        refuseUnusableKey(parts, key);
        const body = parseOrRefuse(
          createSchema,
          await readJsonBody(context.request, parts.config.maxBodyBytes),
        );
        const id = `msgbatch_${crypto.randomBytes(12).toString('hex')}`;
        const lines = toLineRows(id, checkRequests(body.requests), (error) =>
          messagesErrorBody(error, context.traceId),
        );
        const batch = await startBatch(
          parts,
          {
            id,
            keyId: key.id,
            shape: 'anthropic',
            endpoint: MESSAGES_ENDPOINT,
            inputFileId: null,
            metadata: null,
          },
          lines,
        );
        await answer(context, batch);
      }),
    );
    addRoute(
      router,
      docs.getMessageBatch,
      handle(async (context, key) =>
        answer(context, await ownBatch(parts, key, context.params.id!, 'anthropic')),
      ),
      keyPath('/v1/messages/batches'),
    );
    addRoute(
      router,
      docs.listMessageBatches,
      handle(async (context, key) => {
        const query = parseOrRefuse(listQuerySchema, queryOf(context.url), 'query parameter');
        const rows = await parts.store.batches.listBatches(key.id, 'anthropic', {
          limit: query.limit + 1,
          after: query.after_id,
        });
        const page = rows.slice(0, query.limit);
        const data = await Promise.all(
          page.map(async (batch) =>
            messageBatchObject(batch, await parts.store.batches.counts(batch.id), origin(context)),
          ),
        );
        sendJson(context.response, 200, {
          data,
          has_more: rows.length > query.limit,
          first_id: data[0]?.id ?? null,
          last_id: data.at(-1)?.id ?? null,
        });
      }),
    );
    addRoute(
      router,
      docs.cancelMessageBatch,
      handle(async (context, key) => {
        const batch = await ownBatch(parts, key, context.params.id!, 'anthropic');
        const cancelled =
          (await parts.store.batches.cancel(batch.id, Math.floor(Date.now() / 1000))) ?? batch;
        parts.batchRunner?.wake();
        await answer(context, cancelled);
      }),
      keyPath('/v1/messages/batches', '/cancel'),
    );
    addRoute(
      router,
      docs.getMessageBatchResults,
      handle(async (context, key) => {
        const batch = await ownBatch(parts, key, context.params.id!, 'anthropic');
        if (batch.status !== 'completed' && batch.status !== 'cancelled') {
          throw invalidRequest(
            `Batch '${batch.id}' has not ended yet; its results are ready once it has.`,
          );
        }
        const text = await resultLines(
          parts,
          batch.id,
          ['succeeded', 'errored', 'cancelled'],
          messageResultLine,
        );
        context.response.writeHead(200, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        context.response.end(text);
      }),
      keyPath('/v1/messages/batches', '/results'),
    );
  },
};
