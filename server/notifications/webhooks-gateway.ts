/**
 * The gateway's `/v1/webhooks` as an account profile calls them (Bearer): list, show, create,
 * change, delete an endpoint, send it a test event and read its deliveries. Each answer is parsed
 * with the `contract/webhooks.ts` schema, which keeps the known fields only, so a signing secret
 * passes on from the creation's answer and from nowhere else.
 */
import { z } from 'zod';
import {
  createdWebhookSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookListSchema,
  webhookSchema,
  type CreatedWebhook,
  type Webhook,
  type WebhookChange,
  type WebhookCreate,
  type WebhookDelivery,
} from '../../contract/webhooks';
import type { WorkbenchContext } from '../core/context';
import { gatewayCallFailure, readGatewayAnswer } from '../core/errors';
import { GatewayCallError, type GatewayRequest } from '../core/gateway-client';
import { redactJson } from '../core/secrets';

export interface WebhookCallOptions {
  /** Receives the gateway's trace id (for the request log line). */
  onCfRay?: (cfRay: string | null) => void;
}

const webhookPath = (id: string, suffix = '') => `/v1/webhooks/${encodeURIComponent(id)}${suffix}`;
const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });
const notAWebhook = 'The gateway’s answer is not a webhook endpoint (object "webhook").';
const notADelivery = 'The gateway’s answer is not a webhook delivery (object "webhook_delivery").';

/** One webhook call with the account key, parsed with `schema`; refusals keep their status. */
async function callWebhooks<T>(
  context: WorkbenchContext,
  accountKey: string,
  call: Pick<GatewayRequest, 'method' | 'path' | 'json'>,
  schema: z.ZodType<T>,
  shapeProblem: string,
  options: WebhookCallOptions,
): Promise<T> {
  try {
    const answer = await context.gateway.collect({ ...call, key: accountKey });
    options.onCfRay?.(answer.cfRay);
    return readGatewayAnswer(answer, schema, shapeProblem, context.profiles.allKeys());
  } catch (error) {
    if (error instanceof GatewayCallError) throw gatewayCallFailure(error, context.mode);
    throw error;
  }
}

export function listWebhooks(
  context: WorkbenchContext,
  accountKey: string,
  options: WebhookCallOptions = {},
): Promise<Webhook[]> {
  return callWebhooks(
    context,
    accountKey,
    { method: 'GET', path: '/v1/webhooks' },
    webhookListSchema,
    'The gateway’s list of webhook endpoints does not have the expected shape (object "list").',
    options,
  ).then((list) => list.data);
}

export function showWebhook(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: WebhookCallOptions = {},
): Promise<Webhook> {
  return callWebhooks(
    context,
    accountKey,
    { method: 'GET', path: webhookPath(id) },
    webhookSchema,
    notAWebhook,
    options,
  );
}

/** Creates an endpoint; the answer's secret is for the browser, once, and nothing else. */
export function createWebhook(
  context: WorkbenchContext,
  accountKey: string,
  input: WebhookCreate,
  options: WebhookCallOptions = {},
): Promise<CreatedWebhook> {
  return callWebhooks(
    context,
    accountKey,
    { method: 'POST', path: '/v1/webhooks', json: input },
    createdWebhookSchema,
    'The gateway’s answer to creating a webhook endpoint is not one with its secret.',
    options,
  );
}

export function changeWebhook(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  change: WebhookChange,
  options: WebhookCallOptions = {},
): Promise<Webhook> {
  return callWebhooks(
    context,
    accountKey,
    { method: 'PATCH', path: webhookPath(id), json: change },
    webhookSchema,
    notAWebhook,
    options,
  );
}

export function deleteWebhook(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: WebhookCallOptions = {},
): Promise<{ id: string; deleted: true }> {
  return callWebhooks(
    context,
    accountKey,
    { method: 'DELETE', path: webhookPath(id) },
    deletedSchema,
    'The gateway’s answer to deleting a webhook endpoint does not say it was deleted.',
    options,
  );
}

export async function testWebhook(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: WebhookCallOptions = {},
): Promise<WebhookDelivery> {
  const delivery = await callWebhooks(
    context,
    accountKey,
    { method: 'POST', path: webhookPath(id, '/test') },
    webhookDeliverySchema,
    notADelivery,
    options,
  );
  return maskDelivery(context, delivery);
}

export async function webhookDeliveries(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  limit: number | undefined,
  options: WebhookCallOptions = {},
): Promise<WebhookDelivery[]> {
  const list = await callWebhooks(
    context,
    accountKey,
    { method: 'GET', path: webhookPath(id, `/deliveries${limit ? `?limit=${limit}` : ''}`) },
    webhookDeliveryListSchema,
    'The gateway’s list of webhook deliveries does not have the expected shape (object "list").',
    options,
  );
  return list.data.map((delivery) => maskDelivery(context, delivery));
}

/** The gateway masks keys in payloads; masking again guards against one that does not. */
function maskDelivery(context: WorkbenchContext, delivery: WebhookDelivery): WebhookDelivery {
  const knownKeys = context.profiles.allKeys();
  return { ...delivery, payload: redactJson(delivery.payload, knownKeys) };
}
