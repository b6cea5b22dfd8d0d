/**
 * An account profile's notification endpoints (webhooks), managed through the gateway's
 * `/v1/webhooks` with the profile's key:
 * - `GET    /api/profiles/:profile/webhooks` lists them;
 * - `POST   /api/profiles/:profile/webhooks` creates one; its answer is the one BFF answer that
 *   carries the signing secret, sent once with `Cache-Control: no-store`, kept nowhere;
 * - `GET`, `PATCH` (events, thresholds, `paused`), `DELETE /api/profiles/:profile/webhooks/:id`;
 * - `POST   /api/profiles/:profile/webhooks/:id/test` sends a test event, answering its delivery;
 * - `GET    /api/profiles/:profile/webhooks/:id/deliveries?limit=` lists recent deliveries.
 * A child profile gets the gateway's 403, advised on as such. Needs a session when sign-in is on.
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { webhookChangeSchema, webhookCreateSchema } from '../../contract/webhooks';
import type {
  CreatedProfileWebhook,
  DeletedProfileWebhook,
  ProfileWebhook,
  ProfileWebhooks,
  WebhookDeliveries,
  WebhookTestResult,
} from '../../contract/workbench-api';
import type { WorkbenchContext } from '../core/context';
import { parseInput, setAdviceSituation } from '../core/errors';
import {
  changeWebhook,
  createWebhook,
  deleteWebhook,
  listWebhooks,
  showWebhook,
  testWebhook,
  webhookDeliveries,
  type WebhookCallOptions,
} from './webhooks-gateway';

export const webhooksPath = '/profiles/:profile/webhooks';
export const webhookPath = `${webhooksPath}/:id`;
const webhooksPathPattern = /^\/profiles\/[^/]+\/webhooks(?:\/|$)/;

const profileParamsSchema = z.object({ profile: z.string().min(1) });
const webhookParamsSchema = profileParamsSchema.extend({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a webhook id'),
});
const deliveriesQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= 1 && value <= 100, { message: 'must be between 1 and 100' })
    .optional(),
});
/** PATCH needs something to change; the gateway would accept an empty one and change nothing. */
const changeRequestSchema = webhookChangeSchema.refine((body) => Object.keys(body).length > 0, {
  message: 'give at least one field to change, such as paused or events',
});
/** DELETE and the test carry a JSON body (the same-origin guard asks for one): `{}`, or none. */
const emptyBodySchema = z.strictObject({}).optional();

export interface WebhooksOptions {
  /** The sign-in check (access.ts): managing endpoints always needs a session. */
  requireSession: RequestHandler;
}

export function createWebhooksRouter(context: WorkbenchContext, options: WebhooksOptions): Router {
  const { profiles, logger } = context;
  const router = Router();

  router.use((request, response, next) => {
    if (!webhooksPathPattern.test(request.path)) return next();
    // A 403 or 404 from the gateway here is about webhook endpoints, and is advised on as such.
    setAdviceSituation(response.locals, { webhooks: true });
    options.requireSession(request, response, next);
  });

  const callOptions = (response: { locals: Record<string, unknown> }): WebhookCallOptions => ({
    onCfRay: (cfRay) => {
      response.locals.cfRay = cfRay;
    },
  });

  router.get(webhooksPath, async (request, response) => {
    const { profile } = parseInput(profileParamsSchema, request.params, 'query');
    const webhooks = await listWebhooks(context, profiles.keyOf(profile), callOptions(response));
    const answer: ProfileWebhooks = { profile, webhooks, fetched_at: Date.now() };
    response.json(answer);
  });

  router.post(webhooksPath, async (request, response) => {
    const { profile } = parseInput(profileParamsSchema, request.params, 'query');
    const input = parseInput(webhookCreateSchema, request.body, 'body');
    const created = await createWebhook(
      context,
      profiles.keyOf(profile),
      input,
      callOptions(response),
    );
    const { secret, ...webhook } = created;
    // The id and events only: the secret goes to the browser and nowhere else.
    logger.info(
      { webhook_id: webhook.id, events: webhook.events },
      'webhook endpoint created; its secret was handed over and is not kept',
    );
    const answer: CreatedProfileWebhook = { webhook, secret };
    // Said here too, not left to the API-wide header: this answer must never be cached.
    response.setHeader('Cache-Control', 'no-store');
    response.status(201).json(answer);
  });

  router.get(webhookPath, async (request, response) => {
    const { profile, id } = parseInput(webhookParamsSchema, request.params, 'query');
    const webhook = await showWebhook(context, profiles.keyOf(profile), id, callOptions(response));
    const answer: ProfileWebhook = { webhook };
    response.json(answer);
  });

  router.patch(webhookPath, async (request, response) => {
    const { profile, id } = parseInput(webhookParamsSchema, request.params, 'query');
    const change = parseInput(changeRequestSchema, request.body, 'body');
    const webhook = await changeWebhook(
      context,
      profiles.keyOf(profile),
      id,
      change,
      callOptions(response),
    );
    const answer: ProfileWebhook = { webhook };
    response.json(answer);
  });

  router.delete(webhookPath, async (request, response) => {
    const { profile, id } = parseInput(webhookParamsSchema, request.params, 'query');
    parseInput(emptyBodySchema, request.body, 'body');
    const deleted = await deleteWebhook(
      context,
      profiles.keyOf(profile),
      id,
      callOptions(response),
    );
    logger.info({ webhook_id: id }, 'webhook endpoint deleted');
    const answer: DeletedProfileWebhook = { id: deleted.id, deleted: true };
    response.json(answer);
  });

  router.post(`${webhookPath}/test`, async (request, response) => {
    const { profile, id } = parseInput(webhookParamsSchema, request.params, 'query');
    parseInput(emptyBodySchema, request.body, 'body');
    const delivery = await testWebhook(context, profiles.keyOf(profile), id, callOptions(response));
    const answer: WebhookTestResult = { delivery };
    response.json(answer);
  });

  router.get(`${webhookPath}/deliveries`, async (request, response) => {
    const { profile, id } = parseInput(webhookParamsSchema, request.params, 'query');
    const { limit } = parseInput(deliveriesQuerySchema, request.query, 'query');
    const deliveries = await webhookDeliveries(
      context,
      profiles.keyOf(profile),
      id,
      limit,
      callOptions(response),
    );
    const answer: WebhookDeliveries = { deliveries };
    response.json(answer);
  });

  return router;
}
