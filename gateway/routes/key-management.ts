/**
 * The key-management routes, shared by an account key managing its children (`/v1/keys`) and the
 * operator managing account keys (`/admin/v1/keys`): list, show, create, change, rotate, revoke,
 * and each key's audited changes. Every change goes through the one KeyAdmin, so both follow the
 * same rules. A key outside the manager's reach answers 404, whether it exists or not.
 *
 * The full key appears in exactly two answers, create and rotate, marked `no-store`.
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import {
  issuedKeySchema,
  keyEventListSchema,
  keyPeriodListSchema,
  limitResetSchema,
  managedKeyListSchema,
  managedKeySchema,
  type KeyKind,
} from '../../contract/gateway';
import { chatErrorBody } from '../forms/openai/error-shape';
import { GatewayError, invalidRequest, notFound } from '../errors';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext, RouteHandler, Router } from '../http/router';
import {
  KeyAdminError,
  type CreateKeyInput,
  type IssuedKey,
  type KeyActor,
  type KeySummary,
} from '../keys/key-admin';
import type { KeyRow } from '../store/store';
import { addRoute, jsonContent, named, type RouteDoc } from './route-doc';
import {
  decodeCursor,
  encodeCursor,
  parseOrRefuse,
  queryOf,
  withErrors,
  type GatewayParts,
} from './route-kit';

/** Bodies here are a handful of fields. */
export const MAX_KEY_BODY_BYTES = 16 * 1024;
const MAX_EVENTS_PAGE = 200;

/** Who is acting, on which keys. */
export type Manager = {
  actor: KeyActor;
  /** Whether this manager may see and change `key`. */
  reaches(key: KeyRow): boolean;
  /** The keys it lists. */
  listFilter: { parentId?: string; kind?: KeyKind };
};

export type KeyManagementOptions<CreateBody> = {
  /** Its routes' descriptions (`keyManagementDocs`), whose paths start with its prefix. */
  docs: KeyManagementDocs;
  /** Checks the caller (401, 403) and says what it may manage. */
  authorize(context: RouteContext): Manager | Promise<Manager>;
  createSchema: z.ZodType<CreateBody>;
  createInput(body: CreateBody, manager: Manager): CreateKeyInput;
};

/** Optional fields shared by create and change: given values only, null only for the expiry. */
const keyFields = {
  name: z.string().optional(),
  limit_usd: z.number().optional(),
  grace_usd: z.number().optional(),
  /** Unix seconds; null for no expiry. */
  expires_at: z.number().int().nullable().optional(),
  limit_reset: limitResetSchema.optional().meta({
    description:
      "How often the limit renews, at 00:00 UTC (weeks from Monday, months from the 1st); `none` (default): it covers the key's whole life.",
  }),
  allowed_models: z.array(z.string()).optional().meta({
    description:
      "Model ids and patterns (`anthropic/*`, `*:free`) the key may use; empty: every model its parent allows. A child only narrows its parent's list.",
  }),
};

export const changeSchema = z
  .strictObject({ ...keyFields, disabled: z.boolean().optional() })
  .refine((body) => Object.keys(body).length > 0, {
    message: `give at least one of ${[...Object.keys(keyFields), 'disabled'].join(', ')}`,
  });

export const createFields = keyFields;

const listQuerySchema = z.object({
  include_revoked: z
    .enum(['true', 'false'])
    .default('false')
    .meta({ description: 'true: revoked keys too.' }),
});
const periodsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
});
const eventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
  cursor: z.string().max(200).optional(),
});

/** What differs between the two managers' routes, for their descriptions. */
export type KeyManagementDocOptions = {
  prefix: string;
  tag: string;
  /** Prefixes each operation id: `` for `/v1/keys`, `admin` for the operator's. */
  operationPrefix: string;
  /** Whose keys: "child key", "account key". */
  noun: string;
  /** The `route` label of its requests in /metrics. */
  metricsRoute: 'keys' | 'admin_keys';
  auth: RouteDoc['auth'];
  createSchema: z.ZodType;
  /** Error statuses every route here can answer (the caller's check). */
  callerErrors: readonly number[];
  /** Error statuses the routes that change a key add (a stopped manager, 402). */
  writeErrors: readonly number[];
};

export type KeyManagementDocs = ReturnType<typeof keyManagementDocs>;

export const keyIdParams = z.object({
  id: z.string().meta({ examples: ['key_0123456789abcdef'] }),
});

/** The seven key-management routes' descriptions, for `prefix`. */
export function keyManagementDocs(options: KeyManagementDocOptions) {
  const { prefix, tag, noun, auth, callerErrors, writeErrors } = options;
  const capitalized = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}`;
  const id = (name: string) =>
    options.operationPrefix === '' ? name : `${options.operationPrefix}${capitalized(name)}`;
  const errors = (...statuses: number[]) => ({
    form: 'gateway' as const,
    statuses: [...new Set([...callerErrors, ...statuses])].sort((a, b) => a - b),
  });
  const body = [400, 413, 415];
  const managedKeyAnswer = (description: string) =>
    jsonContent(description, named('ManagedKey', managedKeySchema));
  const issuedKeyAnswer = (description: string) =>
    jsonContent(description, named('IssuedKey', issuedKeySchema));
  const item = `${prefix}/{id}`;
  return {
    list: {
      operationId: id('listKeys'),
      metricsRoute: options.metricsRoute,
      method: 'GET',
      path: prefix,
      summary: `List ${noun}s`,
      description: 'Masked, with state, limit, remaining and expiry.',
      tag,
      auth,
      query: listQuerySchema,
      responses: {
        200: jsonContent(`The ${noun}s.`, named('ManagedKeyList', managedKeyListSchema)),
      },
      errors: errors(400),
    },
    create: {
      operationId: id('createKey'),
      metricsRoute: options.metricsRoute,
      method: 'POST',
      path: prefix,
      summary: `Create a ${noun}`,
      description: 'The answer is the only one that shows the full key: store it then.',
      tag,
      auth,
      body: named(`${capitalized(id('createKey'))}Request`, options.createSchema),
      responses: { 201: issuedKeyAnswer('The new key, in full this once.') },
      errors: errors(...body, ...writeErrors, 404, 409),
    },
    get: {
      operationId: id('getKey'),
      metricsRoute: options.metricsRoute,
      method: 'GET',
      path: item,
      summary: `Show a ${noun}`,
      tag,
      auth,
      pathParams: keyIdParams,
      responses: { 200: managedKeyAnswer('The key, masked.') },
      errors: errors(404),
    },
    update: {
      operationId: id('updateKey'),
      metricsRoute: options.metricsRoute,
      method: 'PATCH',
      path: item,
      summary: `Change a ${noun}`,
      description: 'Its name, limit, grace, expiry, or whether it is disabled.',
      tag,
      auth,
      pathParams: keyIdParams,
      body: named('ChangeKeyRequest', changeSchema),
      responses: { 200: managedKeyAnswer('The key as changed.') },
      errors: errors(...body, ...writeErrors, 404, 409),
    },
    revoke: {
      operationId: id('revokeKey'),
      metricsRoute: options.metricsRoute,
      method: 'DELETE',
      path: item,
      summary: `Revoke a ${noun}`,
      tag,
      auth,
      pathParams: keyIdParams,
      responses: { 200: managedKeyAnswer('The key as revoked.') },
      errors: errors(...writeErrors, 404, 409),
    },
    rotate: {
      operationId: id('rotateKey'),
      metricsRoute: options.metricsRoute,
      method: 'POST',
      path: `${item}/rotate`,
      summary: `Give a ${noun} a new secret`,
      description: 'The old secret stops at once; the answer shows the new one in full, once.',
      tag,
      auth,
      pathParams: keyIdParams,
      responses: { 200: issuedKeyAnswer('The key with its new secret.') },
      errors: errors(...writeErrors, 404, 409),
    },
    periods: {
      operationId: id('listKeyPeriods'),
      metricsRoute: options.metricsRoute,
      method: 'GET',
      path: `${item}/periods`,
      summary: `The past budget periods of a ${noun}`,
      description:
        'Newest first: each ended period of a key whose limit renews (`limit_reset`), with its limit and what the key spent in it.',
      tag,
      auth,
      pathParams: keyIdParams,
      query: periodsQuerySchema,
      responses: {
        200: jsonContent('Past periods.', named('KeyPeriodList', keyPeriodListSchema)),
      },
      errors: errors(400, 404),
    },
    events: {
      operationId: id('listKeyEvents'),
      metricsRoute: options.metricsRoute,
      method: 'GET',
      path: `${item}/events`,
      summary: `The audited changes of a ${noun}`,
      description: 'Newest first, in pages (`next_cursor`).',
      tag,
      auth,
      pathParams: keyIdParams,
      query: eventsQuerySchema,
      responses: {
        200: jsonContent('A page of changes.', named('KeyEventList', keyEventListSchema)),
      },
      errors: errors(400, 404),
    },
  } satisfies Record<string, RouteDoc>;
}

/** A managed key on the wire: the summary, never more than the masked key. */
export const managedKey = (summary: KeySummary) => ({ object: 'api_key' as const, ...summary });

/** The one answer that carries a full key (create, rotate). */
const issuedKey = (issued: IssuedKey, summary: KeySummary) => ({
  object: 'issued_key' as const,
  key: issued.key,
  data: managedKey(summary),
  note: 'The full key is shown in this answer only; store it now. The gateway keeps only its digest.',
});

const noStore = { 'cache-control': 'no-store' };

export function readKeyBody(request: IncomingMessage): Promise<unknown> {
  return readJsonBody(request, MAX_KEY_BODY_BYTES);
}

/** A KeyAdmin refusal in the gateway's one error shape, naming the field. */
export function fromKeyAdminError(error: unknown): unknown {
  if (!(error instanceof KeyAdminError)) return error;
  if (error.reason === 'not_found') return notFound(error.apiMessage);
  if (error.reason === 'conflict') {
    return new GatewayError({
      status: 409,
      type: 'conflict',
      stage: 'validation',
      message: error.apiMessage,
    });
  }
  const named = error.field === null || error.apiMessage.includes(`'${error.field}'`);
  return invalidRequest(
    named ? error.apiMessage : `Invalid field '${error.field}': ${error.apiMessage}`,
  );
}

/** A route handler with the gateway's error shape, KeyAdmin's refusals included. */
export function managed(handler: RouteHandler): RouteHandler {
  return withErrors(chatErrorBody, async (context) => {
    try {
      await handler(context);
    } catch (error) {
      throw fromKeyAdminError(error);
    }
  });
}

/** The pattern of `<prefix>/{id}` plus `suffix`. */
export function keyPath(prefix: string, suffix = ''): RegExp {
  const escaped = `${prefix}/`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`^${escaped}(?<id>[^/]+)${suffix.replace(/\//g, '\\/')}$`);
}

/** The key `{id}` of the path, if the manager reaches it; otherwise 404 (no probing). */
export async function reachableKey(
  parts: Pick<GatewayParts, 'admin'>,
  manager: Manager,
  id: string,
): Promise<KeyRow> {
  const key = await parts.admin.find(id);
  if (!key || !manager.reaches(key)) {
    throw notFound(`No key ${id.slice(0, 64)} is managed by this caller.`);
  }
  return key;
}

export function addKeyManagementRoutes<CreateBody>(
  router: Router,
  parts: Pick<GatewayParts, 'admin'>,
  options: KeyManagementOptions<CreateBody>,
): void {
  const { authorize, docs } = options;
  const prefix = docs.list.path;
  const { admin } = parts;

  addRoute(
    router,
    docs.list,
    managed(async (context) => {
      const manager = await authorize(context);
      const query = parseOrRefuse(listQuerySchema, queryOf(context.url), 'query parameter');
      const keys = await admin.list({
        ...manager.listFilter,
        includeRevoked: query.include_revoked === 'true',
      });
      sendJson(context.response, 200, { object: 'list', data: keys.map(managedKey) }, noStore);
    }),
  );

  addRoute(
    router,
    docs.create,
    managed(async (context) => {
      const manager = await authorize(context);
      const body = parseOrRefuse(options.createSchema, await readKeyBody(context.request));
      const issued = await admin.create(options.createInput(body, manager), manager.actor);
      sendJson(context.response, 201, issuedKey(issued, await admin.show(issued.id)), noStore);
    }),
  );

  addRoute(
    router,
    docs.get,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      sendJson(context.response, 200, managedKey(await admin.show(key.id)), noStore);
    }),
    keyPath(prefix),
  );

  addRoute(
    router,
    docs.update,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      const body = parseOrRefuse(changeSchema, await readKeyBody(context.request));
      const summary = await admin.set(
        key.id,
        {
          name: body.name,
          limitUsd: body.limit_usd,
          graceUsd: body.grace_usd,
          expiresAt: body.expires_at,
          disabled: body.disabled,
          limitReset: body.limit_reset,
          allowedModels: body.allowed_models,
        },
        manager.actor,
      );
      sendJson(context.response, 200, managedKey(summary), noStore);
    }),
    keyPath(prefix),
  );

  addRoute(
    router,
    docs.revoke,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      sendJson(
        context.response,
        200,
        managedKey(await admin.revoke(key.id, manager.actor)),
        noStore,
      );
    }),
    keyPath(prefix),
  );

  addRoute(
    router,
    docs.rotate,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      const issued = await admin.rotate(key.id, manager.actor);
      sendJson(context.response, 200, issuedKey(issued, await admin.show(issued.id)), noStore);
    }),
    keyPath(prefix, '/rotate'),
  );

  addRoute(
    router,
    docs.events,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      const query = parseOrRefuse(eventsQuerySchema, queryOf(context.url), 'query parameter');
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
      const events = await admin.events(key.id, { limit: query.limit + 1, beforeId });
      const page = events.slice(0, query.limit);
      const more = events.length > query.limit;
      sendJson(
        context.response,
        200,
        {
          object: 'list',
          data: page,
          has_more: more,
          next_cursor: more ? encodeCursor([page[page.length - 1]!.id]) : null,
        },
        noStore,
      );
    }),
    keyPath(prefix, '/events'),
  );

  addRoute(
    router,
    docs.periods,
    managed(async (context) => {
      const manager = await authorize(context);
      const key = await reachableKey(parts, manager, context.params.id!);
      const query = parseOrRefuse(periodsQuerySchema, queryOf(context.url), 'query parameter');
      sendJson(
        context.response,
        200,
        { object: 'list', data: await admin.periods(key.id, query.limit) },
        noStore,
      );
    }),
    keyPath(prefix, '/periods'),
  );
}
