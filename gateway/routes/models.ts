/**
 * `GET /v1/models`: the public catalog, and `GET /v1/models/{model_id}`, one entry of it. No key
 * needed; a sent key that is live and limited to some models (`allowed_models`) lists only those,
 * and any other sent key is ignored, not checked. A request with an `anthropic-version` header (as
 * Claude Code's model picker and the vendor's SDK send) gets the vendor's shape and paging.
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { modelEntrySchema } from '../../contract/gateway';
import { toWireEntry, type CatalogModel } from '../catalog/catalog';
import { messagesErrorBody } from '../forms/anthropic/error-shape';
import { chatErrorBody } from '../forms/openai/error-shape';
import { invalidRequest } from '../errors';
import type { RouteHandler } from '../http/router';
import { sendJson } from '../http/respond';
import { presentedKey } from '../auth/authenticate';
import { hasModelLimits, modelRefusal } from '../keys/key-state';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, queryOf, withErrors } from './route-kit';

const membersSchema = z.array(z.string()).meta({
  description:
    "An alias's models, or a preset's model and fallbacks (docs/routing.md); absent on a catalog model.",
});
const listedEntrySchema = modelEntrySchema.extend({ members: membersSchema.optional() });

/** The catalog, then the aliases and presets, each with its members. */
const modelListBodySchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(listedEntrySchema),
});

/**
 * A catalog model in the vendor's `ModelInfo` shape: the fields the catalog knows.
 * @see https://docs.anthropic.com/en/api/models
 */
const anthropicModelSchema = z.object({
  type: z.literal('model'),
  id: z.string(),
  display_name: z.string(),
  /** RFC 3339: the catalog's `created`. */
  created_at: z.string(),
  max_input_tokens: z.number().int(),
  max_tokens: z.number().int(),
  members: membersSchema.optional(),
});

/** @see https://docs.anthropic.com/en/api/models-list */
const anthropicModelListSchema = z.object({
  data: z.array(anthropicModelSchema),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});

type AnthropicEntry = z.output<typeof anthropicModelSchema>;

/** The vendor's paging; other parameters (`beta`, `key`) are not this route's business. */
const anthropicListQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .meta({ description: 'With anthropic-version: models per page, 1–1000 (default 20).' }),
  after_id: z
    .string()
    .optional()
    .meta({ description: 'With anthropic-version: the page right after this model id.' }),
  before_id: z
    .string()
    .optional()
    .meta({ description: 'With anthropic-version: the page right before this model id.' }),
});

const versionHeaders = z.object({
  'anthropic-version': z.string().optional().meta({
    description: "Any value: answers in Anthropic's shape (and its error shape), with its paging.",
  }),
});

const listModels: RouteDoc = {
  operationId: 'listModels',
  metricsRoute: 'models',
  method: 'GET',
  path: '/v1/models',
  summary: 'The model catalog',
  description:
    "Every catalog model with its prices, limits, modalities and providers. With an anthropic-version header: Anthropic's list (type, display_name, created_at, has_more, first_id, last_id), newest first, paged by limit, after_id and before_id.",
  tag: 'Catalog',
  auth: 'none',
  query: anthropicListQuerySchema,
  headers: versionHeaders,
  responses: {
    200: jsonContent(
      'The catalog.',
      named('ModelList', z.union([modelListBodySchema, anthropicModelListSchema])),
    ),
  },
  // Only the vendor's shape reads a query, so only it refuses one.
  errors: { form: 'messages', statuses: [400] },
};

const getModel: RouteDoc = {
  operationId: 'getModel',
  metricsRoute: 'models',
  method: 'GET',
  path: '/v1/models/{model_id}',
  summary: 'One catalog model',
  description:
    "The catalog entry of a model, named by its full id (its slash percent-encoded, as the SDKs send it) or, where unambiguous, its bare name. With an anthropic-version header: Anthropic's model object, and errors in that form's shape.",
  tag: 'Catalog',
  auth: 'none',
  pathParams: z.object({
    model_id: z.string().meta({ examples: ['sim/chat-standard'] }),
  }),
  headers: versionHeaders,
  responses: {
    200: jsonContent(
      'The model.',
      named('Model', z.union([listedEntrySchema, anthropicModelSchema])),
    ),
  },
  errors: { form: 'gateway', statuses: [400, 404] },
};

/** One path segment: a catalog id's `/` comes encoded (`sim%2Fchat-standard`). */
const MODEL_PATH = /^\/v1\/models\/(?<id>[^/]+)$/;

/** The catalog does not change while the gateway runs; the shape follows one request header. */
const CACHING = { 'cache-control': 'public, max-age=60', vary: 'anthropic-version' };

const wantsAnthropicShape = (request: IncomingMessage) =>
  request.headers['anthropic-version'] !== undefined;

/** RFC 3339 in whole seconds, as the vendor writes it (`2025-02-19T00:00:00Z`). */
const rfc3339 = (unixSeconds: number) =>
  new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function toAnthropicModel(
  model: CatalogModel,
  members?: string[],
): z.output<typeof anthropicModelSchema> {
  return {
    type: 'model',
    id: model.id,
    display_name: model.name,
    created_at: rfc3339(model.created),
    max_input_tokens: model.contextLength,
    max_tokens: model.maxCompletionTokens,
    ...(members && { members }),
  };
}

/**
 * One page of the vendor's list: `limit` models right after `after_id`, or right before
 * `before_id`; `has_more` says whether more lie that way.
 * @see https://docs.anthropic.com/en/api/models-list
 */
function anthropicPage<Entry extends { id: string }>(
  entries: readonly Entry[],
  query: { limit: number; after_id?: string; before_id?: string },
): { data: Entry[]; has_more: boolean; first_id: string | null; last_id: string | null } {
  const { limit, after_id: after, before_id: before } = query;
  if (after !== undefined && before !== undefined) {
    throw invalidRequest("Give at most one of the query parameters 'after_id' and 'before_id'.");
  }
  const position = (id: string, parameter: string) => {
    const index = entries.findIndex((entry) => entry.id === id);
    if (index === -1) {
      throw invalidRequest(
        `Invalid query parameter '${parameter}': '${id.slice(0, 200)}' is not a model of this list.`,
      );
    }
    return index;
  };
  let start: number;
  let end: number;
  let hasMore: boolean;
  if (before !== undefined) {
    end = position(before, 'before_id');
    start = Math.max(0, end - limit);
    hasMore = start > 0;
  } else {
    start = after === undefined ? 0 : position(after, 'after_id') + 1;
    end = Math.min(entries.length, start + limit);
    hasMore = end < entries.length;
  }
  const data = entries.slice(start, end);
  return {
    data,
    has_more: hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

export const modelRoutes: RouteFamily<'catalog' | 'names' | 'registry'> = {
  routes: [listModels, getModel],
  add(router, parts) {
    // Built at the first request and again after a preset changes: the catalog itself does not
    // change while the gateway runs, and its part is serialised once, by the catalog.
    let listed: { version: number; body: string; anthropic: AnthropicEntry[] } | undefined;
    const listing = () => {
      if (listed?.version === parts.names.version) return listed;
      const entries = parts.names.entries();
      const extra = entries.map((entry) => ({
        ...toWireEntry(entry.model),
        members: entry.members,
      }));
      const body =
        extra.length === 0
          ? parts.catalog.listBody
          : `${parts.catalog.listBody.slice(0, -2)},${JSON.stringify(extra).slice(1)}}`;
      // The vendor lists the most recently released first; models of one date keep list order.
      const anthropic = [
        ...parts.catalog.models.map((model) => toAnthropicModel(model)),
        ...entries.map((entry) => toAnthropicModel(entry.model, entry.members)),
      ].sort((one, other) => Date.parse(other.created_at) - Date.parse(one.created_at));
      listed = { version: parts.names.version, body, anthropic };
      return listed;
    };
    const anthropicList = () => listing().anthropic;
    // Errors too come in the shape the client reads.
    const inEitherShape = (handler: RouteHandler): RouteHandler => {
      const asAnthropic = withErrors(messagesErrorBody, handler);
      const asGateway = withErrors(chatErrorBody, handler);
      return (context) => (wantsAnthropicShape(context.request) ? asAnthropic : asGateway)(context);
    };

    /** The models the sent key may use, or null for the whole catalog. */
    const allowedFor = async (request: IncomingMessage, url: URL) => {
      let presented: string;
      try {
        presented = presentedKey(
          request,
          url,
          wantsAnthropicShape(request) ? 'messages' : 'chat_completions',
        );
      } catch {
        return null;
      }
      const key = await parts.registry.findByKey(presented);
      if (!key) return null;
      const parent = parts.registry.get(key.parentId);
      if (!hasModelLimits(key, parent)) return null;
      const may = (id: string) => modelRefusal(key, parent, id) === null;
      // An alias or a preset is listed when the key may use one of its members.
      const members = new Map(
        parts.names.entries().map((entry) => [entry.model.id, entry.members]),
      );
      return (id: string) => may(id) || (members.get(id)?.some(may) ?? false);
    };

    addRoute(
      router,
      listModels,
      inEitherShape(async ({ request, response, url }) => {
        const allows = await allowedFor(request, url);
        // A request with a key gets that key's list: no shared cache may keep it or answer a key
        // with another's (or with the public list).
        const keyed =
          request.headers.authorization !== undefined ||
          request.headers['x-api-key'] !== undefined ||
          url.searchParams.has('key');
        const caching = keyed ? { ...CACHING, 'cache-control': 'private, no-store' } : CACHING;
        if (!wantsAnthropicShape(request)) {
          const body = allows
            ? {
                object: 'list',
                data: [
                  ...parts.catalog.models.filter((model) => allows(model.id)).map(toWireEntry),
                  ...parts.names
                    .entries()
                    .filter((entry) => allows(entry.model.id))
                    .map((entry) => ({ ...toWireEntry(entry.model), members: entry.members })),
                ],
              }
            : listing().body;
          sendJson(response, 200, body, caching);
          return;
        }
        const query = parseOrRefuse(anthropicListQuerySchema, queryOf(url), 'query parameter');
        const entries = allows
          ? anthropicList().filter((entry) => allows(entry.id))
          : anthropicList();
        sendJson(response, 200, anthropicPage(entries, query), caching);
      }),
    );
    addRoute(
      router,
      getModel,
      inEitherShape(({ request, response, params }) => {
        let name: string;
        try {
          name = decodeURIComponent(params.id ?? '');
        } catch {
          throw invalidRequest('The model id in the path is not valid percent-encoding.');
        }
        const named = parts.names.entries().find((entry) => entry.model.id === name);
        const model = named?.model ?? parts.catalog.resolve(name, { allowBareName: true });
        const members = named?.members;
        sendJson(
          response,
          200,
          wantsAnthropicShape(request)
            ? toAnthropicModel(model, members)
            : { ...toWireEntry(model), ...(members && { members }) },
          CACHING,
        );
      }),
      MODEL_PATH,
    );
  },
};
