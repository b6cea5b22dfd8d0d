/**
 * `/v1/webhooks`: an account key manages its own webhook endpoints (a child key gets 403, another
 * account's endpoint 404); `/admin/v1/webhooks`: the operator, for every account, with
 * `GATEWAY_ADMIN_TOKEN`. The events, payload and signature: docs/webhooks.md.
 */
import { z } from 'zod';
import {
  createdWebhookSchema,
  type WebhookCreate,
  webhookChangeSchema,
  webhookCreateSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookListSchema,
  webhookSchema,
} from '../../contract/webhooks';
import { sendJson } from '../http/respond';
import type { RouteContext, Router } from '../http/router';
import { digestOf, requireOperator } from './admin-keys';
import { keyPath, managed, readKeyBody } from './key-management';
import { authorizeAccount } from './keys';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, queryOf, type GatewayParts } from './route-kit';

const noStore = { 'cache-control': 'no-store' };

const idParams = z.object({ id: z.string().meta({ examples: ['wh_0123456789abcdef'] }) });
const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).optional(),
});
const adminListQuery = z.object({
  account_id: z
    .string()
    .min(1)
    .optional()
    .meta({ examples: ['key_0123456789abcdef'] }),
});
const adminCreateSchema = webhookCreateSchema.extend({ account_id: z.string().min(1) });

const deletedSchema = z.object({
  object: z.literal('webhook'),
  id: z.string(),
  deleted: z.literal(true),
});

type Family = {
  prefix: string;
  tag: string;
  auth: RouteDoc['auth'];
  metricsRoute: 'webhooks' | 'admin_webhooks';
  operationPrefix: string;
  callerErrors: number[];
};

function docsFor(family: Family) {
  const id = (name: string) =>
    family.operationPrefix === ''
      ? name
      : `${family.operationPrefix}${name[0]!.toUpperCase()}${name.slice(1)}`;
  const errors = (...statuses: number[]) => ({
    form: 'gateway' as const,
    statuses: [...new Set([...family.callerErrors, ...statuses])].sort((a, b) => a - b),
  });
  const base = { metricsRoute: family.metricsRoute, tag: family.tag, auth: family.auth };
  const item = `${family.prefix}/{id}`;
  const admin = family.operationPrefix !== '';
  const webhook = named('Webhook', webhookSchema);
  return {
    list: {
      ...base,
      operationId: id('listWebhooks'),
      method: 'GET',
      path: family.prefix,
      summary: admin
        ? "List every account's webhook endpoints"
        : "List the account's webhook endpoints",
      description:
        'Each with its status: active, paused, or disabled after repeated failures (with the reason).',
      ...(admin ? { query: adminListQuery } : {}),
      responses: { 200: jsonContent('The endpoints.', named('WebhookList', webhookListSchema)) },
      errors: errors(400),
    },
    create: {
      ...base,
      operationId: id('createWebhook'),
      method: 'POST',
      path: family.prefix,
      summary: 'Add a webhook endpoint',
      description:
        'An https URL to a public address. The answer carries the signing secret (whsec_…), the only time it is shown.',
      body: admin
        ? named('AdminWebhookCreate', adminCreateSchema)
        : named('WebhookCreate', webhookCreateSchema),
      responses: {
        201: jsonContent(
          'The endpoint, with its secret.',
          named('CreatedWebhook', createdWebhookSchema),
        ),
      },
      errors: errors(400, 409, 413, 415, ...(admin ? [404] : [402])),
    },
    show: {
      ...base,
      operationId: id('getWebhook'),
      method: 'GET',
      path: item,
      summary: 'Show a webhook endpoint',
      pathParams: idParams,
      responses: { 200: jsonContent('The endpoint.', webhook) },
      errors: errors(404),
    },
    change: {
      ...base,
      operationId: id('changeWebhook'),
      method: 'PATCH',
      path: item,
      summary: 'Change, pause or resume a webhook endpoint',
      description: '"paused": false resumes an endpoint, also one stopped after repeated failures.',
      pathParams: idParams,
      body: named('WebhookChange', webhookChangeSchema),
      responses: { 200: jsonContent('The endpoint after the change.', webhook) },
      errors: errors(400, 404, 413, 415, ...(admin ? [] : [402])),
    },
    remove: {
      ...base,
      operationId: id('deleteWebhook'),
      method: 'DELETE',
      path: item,
      summary: 'Delete a webhook endpoint',
      description: 'Its pending deliveries are dropped with it.',
      pathParams: idParams,
      responses: { 200: jsonContent('Deleted.', named('DeletedWebhook', deletedSchema)) },
      errors: errors(404, ...(admin ? [] : [402])),
    },
    test: {
      ...base,
      operationId: id('testWebhook'),
      method: 'POST',
      path: `${item}/test`,
      summary: 'Send a test event now',
      description:
        'A webhook.test event about the account key, sent at once; the answer is the delivery after that try (pending if it failed: it is retried like any other).',
      pathParams: idParams,
      responses: {
        200: jsonContent('The delivery.', named('WebhookDelivery', webhookDeliverySchema)),
      },
      errors: errors(404, ...(admin ? [] : [402])),
    },
    deliveries: {
      ...base,
      operationId: id('listWebhookDeliveries'),
      method: 'GET',
      path: `${item}/deliveries`,
      summary: "List an endpoint's recent deliveries",
      description:
        'Newest first: status, tries, the last response code and latency, the next retry.',
      pathParams: idParams,
      query: deliveriesQuery,
      responses: {
        200: jsonContent(
          'The deliveries.',
          named('WebhookDeliveryList', webhookDeliveryListSchema),
        ),
      },
      errors: errors(400, 404),
    },
  } satisfies Record<string, RouteDoc>;
}

/** What differs between the account's and the operator's routes. */
type Access = {
  /** Who is asking: an account (its own endpoints only), or the operator (all; undefined). */
  caller(context: RouteContext): Promise<string | undefined>;
  /** Whose endpoints a listing shows: the caller's, or the operator's `account_id` filter. */
  listed(context: RouteContext, caller: string | undefined): string | undefined;
  /** A creation's owner and settings, from its body. */
  creation(
    raw: unknown,
    caller: string | undefined,
  ): Promise<{ owner: string; body: WebhookCreate }>;
};

function addWebhookRoutes(
  router: Router,
  parts: Pick<GatewayParts, 'webhooks'>,
  family: Family,
  docs: ReturnType<typeof docsFor>,
  access: Access,
): void {
  const pattern = (suffix = '') => keyPath(family.prefix, suffix);
  addRoute(
    router,
    docs.list,
    managed(async (context) => {
      const accountId = await access.caller(context);
      const data = await parts.webhooks.list(access.listed(context, accountId));
      sendJson(context.response, 200, { object: 'list', data }, noStore);
    }),
  );
  addRoute(
    router,
    docs.create,
    managed(async (context) => {
      const accountId = await access.caller(context);
      const { owner, body } = await access.creation(await readKeyBody(context.request), accountId);
      const created = await parts.webhooks.create(owner, body);
      sendJson(context.response, 201, created, noStore);
    }),
  );
  addRoute(
    router,
    docs.show,
    managed(async (context) => {
      const accountId = await access.caller(context);
      sendJson(
        context.response,
        200,
        await parts.webhooks.show(context.params.id!, accountId),
        noStore,
      );
    }),
    pattern(),
  );
  addRoute(
    router,
    docs.change,
    managed(async (context) => {
      const accountId = await access.caller(context);
      await parts.webhooks.require(context.params.id!, accountId);
      const body = parseOrRefuse(webhookChangeSchema, await readKeyBody(context.request));
      const changed = await parts.webhooks.change(context.params.id!, body, accountId);
      sendJson(context.response, 200, changed, noStore);
    }),
    pattern(),
  );
  addRoute(
    router,
    docs.remove,
    managed(async (context) => {
      const accountId = await access.caller(context);
      await parts.webhooks.delete(context.params.id!, accountId);
      sendJson(
        context.response,
        200,
        { object: 'webhook', id: context.params.id!, deleted: true },
        noStore,
      );
    }),
    pattern(),
  );
  addRoute(
    router,
    docs.test,
    managed(async (context) => {
      const accountId = await access.caller(context);
      sendJson(
        context.response,
        200,
        await parts.webhooks.test(context.params.id!, accountId),
        noStore,
      );
    }),
    pattern('/test'),
  );
  addRoute(
    router,
    docs.deliveries,
    managed(async (context) => {
      const accountId = await access.caller(context);
      const { limit } = parseOrRefuse(deliveriesQuery, queryOf(context.url), 'query parameter');
      const data = await parts.webhooks.deliveries(context.params.id!, limit ?? 20, accountId);
      sendJson(context.response, 200, { object: 'list', data }, noStore);
    }),
    pattern('/deliveries'),
  );
}

const accountFamily: Family = {
  prefix: '/v1/webhooks',
  tag: 'Webhooks',
  auth: 'chat_completions',
  metricsRoute: 'webhooks',
  operationPrefix: '',
  callerErrors: [401, 403],
};
const accountDocs = docsFor(accountFamily);

export const webhookRoutes: RouteFamily<'clock' | 'registry' | 'webhooks'> = {
  routes: Object.values(accountDocs),
  add(router, parts) {
    addWebhookRoutes(router, parts, accountFamily, accountDocs, {
      caller: async (context) => (await authorizeAccount(parts, context, 'manages webhooks')).id,
      listed: (_context, accountId) => accountId,
      creation: async (raw, accountId) => ({
        owner: accountId!,
        body: parseOrRefuse(webhookCreateSchema, raw),
      }),
    });
  },
};

const adminFamily: Family = {
  prefix: '/admin/v1/webhooks',
  tag: 'Operator',
  auth: 'operator',
  metricsRoute: 'admin_webhooks',
  operationPrefix: 'admin',
  // 404 also for every route here while GATEWAY_ADMIN_TOKEN is unset: they do not exist then.
  callerErrors: [401, 404],
};
const adminDocs = docsFor(adminFamily);

export const adminWebhookRoutes: RouteFamily<'config' | 'webhooks'> = {
  routes: Object.values(adminDocs),
  add(router, parts) {
    const token = parts.config.adminToken;
    if (token === undefined) return;
    const expected = digestOf(token);
    addWebhookRoutes(router, parts, adminFamily, adminDocs, {
      caller: async ({ request }) => {
        requireOperator(request, expected);
        return undefined;
      },
      listed: (context) =>
        parseOrRefuse(adminListQuery, queryOf(context.url), 'query parameter').account_id,
      creation: async (raw) => {
        const { account_id, ...body } = parseOrRefuse(adminCreateSchema, raw);
        return { owner: (await parts.webhooks.accountKey(account_id)).id, body };
      },
    });
  },
};
