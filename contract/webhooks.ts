/**
 * Webhooks: what `/v1/webhooks` and `/admin/v1/webhooks` take and answer, and what a receiver
 * gets. The events and their payload: docs/webhooks.md.
 */
import { z } from 'zod';

/** Every event an endpoint can subscribe to, in the order the docs list them. */
export const webhookEventTypes = [
  'key.balance_low',
  'key.depleted',
  'key.expiring_soon',
  'key.expired',
  'key.created',
  'key.disabled',
  'key.enabled',
  'key.revoked',
  'key.rotated',
  'key.limit_changed',
  'key.period_reset',
  'batch.completed',
  'batch.failed',
] as const;
export const webhookEventTypeSchema = z.enum(webhookEventTypes);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** Sent by `POST /v1/webhooks/{id}/test`, to whatever the endpoint subscribes to. */
export const webhookTestEventType = 'webhook.test';

export const webhookStatusSchema = z.enum(['active', 'paused', 'disabled']);
export type WebhookStatus = z.infer<typeof webhookStatusSchema>;

/** Limits a creation or a change is checked against; the routes' messages name them. */
export const webhookLimits = {
  urlLength: 2_000,
  descriptionLength: 200,
  perAccount: 20,
  /** Up to 30 days ahead, for `expiring_soon_seconds`. */
  expiringSoonSeconds: 30 * 86_400,
} as const;

const usdAmount = z.number().finite().min(0).max(1_000_000);

/** `POST /v1/webhooks`; `/admin/v1/webhooks` also takes `account_id`. */
export const webhookCreateSchema = z.strictObject({
  url: z.string().min(1).max(webhookLimits.urlLength),
  events: z.array(webhookEventTypeSchema).min(1),
  description: z.string().max(webhookLimits.descriptionLength).optional(),
  balance_low_usd: usdAmount.optional(),
  balance_low_percent: z.number().finite().gt(0).lt(100).optional(),
  expiring_soon_seconds: z.number().int().min(60).max(webhookLimits.expiringSoonSeconds).optional(),
  key_ids: z.array(z.string().min(1)).min(1).max(1_000).optional(),
});
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

/** `PATCH /v1/webhooks/{id}`: any of the creation's fields but `url`, and `paused`. */
export const webhookChangeSchema = z.strictObject({
  events: webhookCreateSchema.shape.events.optional(),
  description: z.string().max(webhookLimits.descriptionLength).nullable().optional(),
  balance_low_usd: usdAmount.nullable().optional(),
  balance_low_percent: z.number().finite().gt(0).lt(100).nullable().optional(),
  expiring_soon_seconds: webhookCreateSchema.shape.expiring_soon_seconds.nullable(),
  key_ids: webhookCreateSchema.shape.key_ids.nullable(),
  /** true pauses; false resumes (and lifts a stop after repeated failures). */
  paused: z.boolean().optional(),
});
export type WebhookChange = z.infer<typeof webhookChangeSchema>;

export const webhookSchema = z.object({
  object: z.literal('webhook'),
  id: z.string(),
  account_id: z.string(),
  url: z.string(),
  events: z.array(webhookEventTypeSchema),
  description: z.string().nullable(),
  balance_low_usd: z.number().nullable(),
  balance_low_percent: z.number().nullable(),
  expiring_soon_seconds: z.number(),
  key_ids: z.array(z.string()).nullable(),
  status: webhookStatusSchema,
  /** Why the gateway stopped sending (status `disabled`), in words. */
  disabled_reason: z.string().nullable(),
  /** Deliveries that failed in a row (reset by a success). */
  consecutive_failures: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** The creation's answer: the only time the signing secret is shown. */
export const createdWebhookSchema = webhookSchema.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

export const webhookListSchema = z.object({
  object: z.literal('list'),
  data: z.array(webhookSchema),
});

export const webhookDeliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);

export const webhookDeliverySchema = z.object({
  object: z.literal('webhook_delivery'),
  /** The `webhook-id` header: the same on every try. */
  id: z.string(),
  webhook_id: z.string(),
  event_type: z.string(),
  status: webhookDeliveryStatusSchema,
  attempts: z.number(),
  /** The last try's HTTP status, or null when it got none (refused, timed out, no connection). */
  response_status: z.number().nullable(),
  /** The last try's time to an answer, in milliseconds. */
  latency_ms: z.number().nullable(),
  /** Why the last try failed, in words. */
  error: z.string().nullable(),
  created_at: z.number(),
  last_attempt_at: z.number().nullable(),
  /** Unix seconds of the next try, for a pending delivery. */
  next_attempt_at: z.number().nullable(),
  payload: z.unknown(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryListSchema = z.object({
  object: z.literal('list'),
  data: z.array(webhookDeliverySchema),
});

/** What a receiver gets as the body. Money in USD; times in Unix seconds. */
export const webhookPayloadSchema = z.object({
  type: z.string(),
  /** ISO 8601, when the event happened. */
  timestamp: z.string(),
  data: z.looseObject({
    key_id: z.string(),
    /** Masked: enough to recognise the key, never to use it. */
    key: z.string(),
    /** The key's kind: account, allocated_child or shared_child. */
    identity: z.string(),
    remaining_usd: z.number(),
    limit_usd: z.number().nullable(),
    threshold_usd: z.number().optional(),
    expires_at: z.number().nullable().optional(),
  }),
});
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
