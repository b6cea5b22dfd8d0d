/**
 * The Responses form: `POST /v1/responses` (every catalog model, plain and streamed), and the
 * stored responses of a key: `GET` and `DELETE /v1/responses/{id}`, `GET /v1/responses/{id}/input_items`.
 * A response is kept (unless `store: false`) for the key that made it; that key and its account
 * may read, continue (`previous_response_id`) or delete it, and every other key gets 404, the
 * answer for a response that does not exist.
 * @see https://platform.openai.com/docs/api-reference/responses
 */
import { z } from 'zod';
import { responsesObjectSchema } from '../../contract/responses-form';
import { authenticate } from '../auth/authenticate';
import { invalidRequest, notFound } from '../errors';
import type { PublicForm } from '../forms/public-form';
import { chatErrorBody } from '../forms/openai/error-shape';
import { responsesForm } from '../forms/responses';
import { responsesRequestSchema, type ResponsesRequest } from '../forms/responses/request-schema';
import { sendJson } from '../http/respond';
import type { KeyRow } from '../store/store';
import type { StoredResponse } from '../store/stored-responses';
import { countPromptTokens } from '../canonical/token-count';
import { COUNT_TOKENS_ERRORS, serveCountTokens, type CountTokensParts } from './count-tokens';
import {
  INFERENCE_ERRORS,
  inferenceRoute,
  type InferenceHooks,
  type InferenceParts,
} from './inference';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, queryOf, withErrors, type GatewayParts } from './route-kit';
import { translationHeadersSchema } from './translation-headers';

type Item = Record<string, unknown>;

/** A stored response's id, as the path carries it. */
const RESPONSE_ID = 'resp_[A-Za-z0-9_-]{1,100}';
const ID = `(?<id>${RESPONSE_ID})`;

const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().max(200).optional(),
  include: z.string().optional(),
  'include[]': z.string().optional(),
});

const deletedSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  deleted: z.literal(true),
});

/** A page of `input_items`: each item as it was given, with an id (its own or a made one). */
const inputItemListSchema = z.object({
  object: z.literal('list'),
  data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

const responseIdParams = z.object({
  id: z
    .string()
    .regex(new RegExp(`^${RESPONSE_ID}$`))
    .meta({ examples: ['resp_0123456789abcdef'] }),
});

const responseObject = named('Response', responsesObjectSchema);

const createResponse: RouteDoc = {
  operationId: 'createResponse',
  metricsRoute: 'responses',
  method: 'POST',
  path: '/v1/responses',
  summary: 'A response (the Responses form)',
  description:
    'Plain, or streamed as server-sent events with `stream: true`. Kept for the key unless `store: false`; `previous_response_id` continues a stored one.',
  tag: 'Responses',
  auth: 'chat_completions',
  headers: translationHeadersSchema,
  body: named('ResponsesRequest', responsesRequestSchema),
  responses: {
    200: {
      description: 'The response; `usage.cost` is the charge in USD.',
      content: {
        'application/json': responseObject,
        'text/event-stream': {
          text: '`response.*` events, `response.created` to `response.completed`.',
        },
      },
    },
  },
  errors: { form: 'gateway', statuses: INFERENCE_ERRORS },
};

const getResponse: RouteDoc = {
  operationId: 'getResponse',
  metricsRoute: 'responses',
  method: 'GET',
  path: '/v1/responses/{id}',
  summary: 'A stored response',
  description: 'For the key that made it and its account key; 404 for every other key.',
  tag: 'Responses',
  auth: 'chat_completions',
  pathParams: responseIdParams,
  responses: { 200: jsonContent('The response.', responseObject) },
  errors: { form: 'gateway', statuses: [401, 404] },
};

const deleteResponse: RouteDoc = {
  operationId: 'deleteResponse',
  metricsRoute: 'responses',
  method: 'DELETE',
  path: '/v1/responses/{id}',
  summary: 'Delete a stored response',
  tag: 'Responses',
  auth: 'chat_completions',
  pathParams: responseIdParams,
  responses: { 200: jsonContent('Deleted.', named('DeletedResponse', deletedSchema)) },
  errors: { form: 'gateway', statuses: [401, 404] },
};

const listInputItems: RouteDoc = {
  operationId: 'listResponseInputItems',
  metricsRoute: 'responses',
  method: 'GET',
  path: '/v1/responses/{id}/input_items',
  summary: 'The input items of a stored response',
  tag: 'Responses',
  auth: 'chat_completions',
  pathParams: responseIdParams,
  query: listQuerySchema,
  responses: {
    200: jsonContent('A page of items.', named('ResponseInputItemList', inputItemListSchema)),
  },
  errors: { form: 'gateway', statuses: [400, 401, 404] },
};

/** `POST /v1/responses/input_tokens`'s answer, as OpenAI's. */
const inputTokensSchema = z.object({
  object: z.literal('response.input_tokens'),
  input_tokens: z.number().int(),
});

const countInputTokens: RouteDoc = {
  operationId: 'countResponseInputTokens',
  metricsRoute: 'responses_input_tokens',
  method: 'POST',
  path: '/v1/responses/input_tokens',
  summary: 'Count the input tokens of a Responses request',
  description:
    'Free: runs no model. The whole input is counted; `previous_response_id` is refused here (send the items).',
  tag: 'Responses',
  auth: 'chat_completions',
  body: named('ResponsesRequest', responsesRequestSchema),
  responses: {
    200: jsonContent('The input tokens.', named('ResponseInputTokens', inputTokensSchema)),
  },
  errors: { form: 'gateway', statuses: COUNT_TOKENS_ERRORS },
};

/** The account a key belongs to: itself, or a child's parent. */
const accountOf = (key: KeyRow) => key.parentId ?? key.id;

/** Whether `key` may see `stored`: the key that made it, or the account over it. */
const mayRead = (key: KeyRow, stored: StoredResponse) =>
  stored.keyId === key.id || (key.kind === 'account' && stored.accountId === key.id);

const now = () => Math.floor(Date.now() / 1000);

/** `POST /v1/responses/compact`'s answer: the compacted window, one `compaction` item. */
const compactionSchema = z.object({
  id: z.string(),
  object: z.literal('response.compaction'),
  created_at: z.number().int(),
  output: z.array(
    z.looseObject({ id: z.string(), type: z.literal('compaction'), encrypted_content: z.string() }),
  ),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }).nullable(),
});

const compactResponse: RouteDoc = {
  operationId: 'compactResponse',
  metricsRoute: 'responses',
  method: 'POST',
  path: '/v1/responses/compact',
  summary: 'Compact a conversation (the Responses form)',
  description:
    "The input (or `previous_response_id`'s conversation) summarized by the model into one `compaction` item; its `encrypted_content` goes back in a later request's input. Charged and recorded as one request.",
  tag: 'Responses',
  auth: 'chat_completions',
  headers: translationHeadersSchema,
  body: named('ResponsesRequest', responsesRequestSchema),
  responses: {
    200: jsonContent(
      "The compacted window; `usage` is the summary request's.",
      named('ResponseCompaction', compactionSchema),
    ),
  },
  errors: { form: 'gateway', statuses: INFERENCE_ERRORS },
};

/** The Responses form with the input ending in a `compaction_trigger`, answered whole. */
const compactForm: PublicForm = {
  ...responsesForm,
  toCanonical(body, target) {
    const request = (body ?? {}) as ResponsesRequest;
    if (request.stream === true)
      throw invalidRequest(
        "Invalid field 'stream': /v1/responses/compact answers whole; leave stream out, or stream a compaction_trigger item on /v1/responses.",
      );
    return responsesForm.toCanonical(
      {
        ...request,
        stream: false,
        store: false,
        input: [...inputItems(request.input), { type: 'compaction_trigger' }],
      },
      target,
    );
  },
  toResponse(answer, meta) {
    const response = responsesForm.toResponse(answer, meta) as z.input<typeof compactionSchema>;
    return {
      id: response.id,
      object: 'response.compaction',
      created_at: response.created_at,
      output: response.output,
      usage: response.usage,
    } satisfies z.input<typeof compactionSchema>;
  },
};

export const responsesRoutes: RouteFamily<
  'names' | 'registry' | 'store' | keyof InferenceParts | keyof CountTokensParts
> = {
  routes: [
    createResponse,
    compactResponse,
    countInputTokens,
    getResponse,
    deleteResponse,
    listInputItems,
  ],
  add(router, parts) {
    const { store } = parts;

    addRoute(
      router,
      countInputTokens,
      withErrors(chatErrorBody, (context) =>
        serveCountTokens(
          parts,
          context,
          'chat_completions',
          (body): z.output<typeof inputTokensSchema> => {
            if ((body as ResponsesRequest | null)?.previous_response_id) {
              throw invalidRequest(
                "Invalid field 'previous_response_id': counting takes the whole input here; send the conversation's items instead.",
              );
            }
            const canonical = responsesForm.toCanonical(body, { url: context.url });
            parts.names.resolve(canonical.model);
            return { object: 'response.input_tokens', input_tokens: countPromptTokens(canonical) };
          },
        ),
      ),
    );

    const { readable, hooks } = responsesContinuation(parts);

    addRoute(router, createResponse, inferenceRoute(parts, responsesForm, undefined, hooks));
    // Nothing of a compaction is stored: its answer is the item the client keeps.
    addRoute(
      router,
      compactResponse,
      inferenceRoute(parts, compactForm, undefined, { prepareBody: hooks.prepareBody }),
    );

    addRoute(
      router,
      getResponse,
      withErrors(chatErrorBody, async ({ request, response, url, params }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        const stored = await readable(key, params.id!);
        sendJson(response, 200, stored.response, { 'cache-control': 'no-store' });
      }),
      new RegExp(`^/v1/responses/${ID}$`),
    );

    addRoute(
      router,
      deleteResponse,
      withErrors(chatErrorBody, async ({ request, response, url, params }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        const stored = await readable(key, params.id!);
        await store.responses.delete(stored.id);
        const deleted: z.output<typeof deletedSchema> = {
          id: stored.id,
          object: 'response',
          deleted: true,
        };
        sendJson(response, 200, deleted);
      }),
      new RegExp(`^/v1/responses/${ID}$`),
    );

    addRoute(
      router,
      listInputItems,
      withErrors(chatErrorBody, async ({ request, response, url, params }) => {
        const key = await authenticate(request, url, 'chat_completions', parts.registry);
        // `key` is the caller's key in its `?key=` form, already read by authentication.
        const { key: _key, ...parameters } = queryOf(url);
        const query = parseOrRefuse(listQuerySchema, parameters, 'query parameter');
        const stored = await readable(key, params.id!);
        const items = (
          query.order === 'desc' ? [...stored.context].reverse() : stored.context
        ) as Item[];
        const start = query.after ? items.findIndex((item) => item.id === query.after) + 1 : 0;
        const page = items.slice(start, start + query.limit);
        sendJson(
          response,
          200,
          {
            object: 'list',
            data: page,
            first_id: page[0]?.id ?? null,
            last_id: page.at(-1)?.id ?? null,
            has_more: start + query.limit < items.length,
          },
          { 'cache-control': 'no-store' },
        );
      }),
      new RegExp(`^/v1/responses/${ID}/input_items$`),
    );
  },
};

/**
 * A response a WebSocket remembers for its next turn, as OpenAI's WebSocket mode keeps the last
 * one in the connection: `previous_response_id` finds it with `store: false` too.
 */
export type RememberedResponse = { id: string; context: Item[]; output: Item[] };

/** Where a socket keeps its last response (routes/responses-socket.ts). */
export type ResponseMemory = {
  get(id: string): RememberedResponse | undefined;
  set(remembered: RememberedResponse): void;
};

/**
 * The Responses form's conversations around the inference steps: `previous_response_id` resolved
 * into the input (from `memory` first, then the store), and each answer kept for the next turn.
 */
export function responsesContinuation(
  parts: Pick<GatewayParts, 'config' | 'logger' | 'store'>,
  memory?: ResponseMemory,
) {
  const { store, config } = parts;

  /** The stored response, or the one 404 for absent, expired and someone else's alike. */
  const readable = async (key: KeyRow, id: string, field?: string) => {
    const stored = await store.responses.get(id, now());
    if (stored && mayRead(key, stored)) return stored;
    throw notFound(
      field
        ? `Invalid field '${field}': no response '${id}' is stored for this key (it was made with store false, by another key, deleted, or expired).`
        : `No response '${id}' is stored for this key.`,
    );
  };

  const hooks: InferenceHooks = {
    // A continuation is the stored conversation, then the previous answer, then the new input.
    async prepareBody(body, key) {
      const request = body as ResponsesRequest | null;
      const previousId = request?.previous_response_id;
      if (typeof previousId !== 'string') return body;
      const previous: { context: Item[]; output: Item[] } =
        memory?.get(previousId) ??
        (await readable(key, previousId, 'previous_response_id').then((stored) => ({
          context: stored.context as Item[],
          output: stored.response.output as Item[],
        })));
      return {
        ...request,
        input: [...previous.context, ...previous.output, ...inputItems(request!.input)],
      };
    },
    async keep(answer, key, request) {
      const body = request.inbound?.body as ResponsesRequest | undefined;
      const response = answer as Item & { id: string; output: Item[] };
      memory?.set({ id: response.id, context: inputItems(body?.input), output: response.output });
      if (body?.store === false) return;
      const created = now();
      try {
        await store.responses.put(
          {
            id: response.id,
            keyId: key.id,
            accountId: accountOf(key),
            createdAt: created,
            expiresAt: created + config.responsesTtlSeconds,
            context: withIds(inputItems(body?.input), response.id),
            response,
          },
          created,
        );
      } catch (error) {
        // The answer itself is charged and delivered; only its continuation is lost.
        parts.logger.error({ err: error, response: response.id }, 'response not stored');
      }
    },
  };
  return { readable, hooks };
}

/** The request's `input` as items: a string is one user message. */
export function inputItems(input: ResponsesRequest['input']): Item[] {
  if (input === undefined) return [];
  if (typeof input === 'string')
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input))
    throw invalidRequest("Invalid field 'input': give a string or a list of items.");
  return input as Item[];
}

/** Items as `input_items` lists them: each with an id (its own, or one made from the response's). */
function withIds(items: Item[], responseId: string): Item[] {
  return items.map((item, index) => ({
    ...(item.type === undefined && { type: 'message' }),
    ...item,
    id:
      typeof item.id === 'string'
        ? item.id
        : `in_${responseId.slice(5)}${String(index).padStart(4, '0')}`,
  }));
}
