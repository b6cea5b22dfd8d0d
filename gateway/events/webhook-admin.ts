/**
 * Managing webhook endpoints, for the routes (`/v1/webhooks`, `/admin/v1/webhooks`) and the
 * command line alike: the checks (an https URL to a public address, the account's own keys, one
 * kind of threshold), the secret shown once, the public shape, a test event sent at once.
 */
import crypto from 'node:crypto';
import {
  webhookLimits,
  webhookTestEventType,
  type CreatedWebhook,
  type Webhook,
  type WebhookChange,
  type WebhookCreate,
  type WebhookDelivery,
} from '../../contract/webhooks';
import { nanosToUsd, usdToNanos } from '../shared/money';
import { GatewayError, invalidRequest, notFound } from '../errors';
import { AddressRefused, checkedAddresses, type Resolve } from '../shared/public-address';
import type { GatewayStore } from '../store/store';
import type { DeliveryRow, WebhookRow, WebhookUpdate } from '../store/webhooks';
import { DEFAULT_EXPIRING_SOON_SECONDS, keyEventPayload, newDeliveryId } from './key-events';
import { newSecret, type SecretSeal } from './signing';
import type { WebhookSender } from './webhook-sender';

export type WebhookAdminOptions = {
  store: GatewayStore;
  seal: SecretSeal;
  resolve: Resolve;
  /** GATEWAY_WEBHOOK_ALLOW_PRIVATE: http and private or loopback targets, for tests and local use. */
  allowPrivate: boolean;
  /** Told of a new delivery, to send it now rather than at its next poll. */
  sender?: WebhookSender;
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class WebhookAdmin {
  constructor(private readonly options: WebhookAdminOptions) {}

  private get store() {
    return this.options.store;
  }

  /** Refuses a URL the gateway must not send to, with a 400 that says why. */
  async checkUrl(text: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalidRequest(
        `Invalid field 'url': ${JSON.stringify(text.slice(0, 100))} is not a URL.`,
      );
    }
    const schemes = this.options.allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) {
      throw invalidRequest(
        `Invalid field 'url': only https URLs are allowed${this.options.allowPrivate ? ' (or http, with GATEWAY_WEBHOOK_ALLOW_PRIVATE)' : ''}; this one is ${url.protocol.replace(':', '')}.`,
      );
    }
    if (url.username || url.password) {
      throw invalidRequest(
        "Invalid field 'url': a URL with a user name or password is refused; put a token in its path or query instead.",
      );
    }
    try {
      await checkedAddresses(url.hostname, this.options.resolve, this.options.allowPrivate);
    } catch (error) {
      if (error instanceof AddressRefused) {
        throw invalidRequest(`Invalid field 'url': ${error.message}`);
      }
      throw error;
    }
    return url;
  }

  async create(accountId: string, body: WebhookCreate): Promise<CreatedWebhook> {
    const url = await this.checkUrl(body.url);
    const threshold = thresholdOf(body);
    await this.checkKeys(accountId, body.key_ids);
    const existing = await this.store.webhooks.list(accountId);
    if (existing.length >= webhookLimits.perAccount) {
      throw new GatewayError({
        status: 409,
        type: 'conflict',
        stage: 'validation',
        message: `This account has ${existing.length} webhook endpoints, the most it may have; delete one first.`,
      });
    }
    const secret = newSecret();
    const now = nowSeconds();
    const row: WebhookRow = {
      id: `wh_${crypto.randomBytes(12).toString('base64url')}`,
      accountId,
      url: url.href,
      events: [...new Set(body.events)],
      keyIds: body.key_ids ? [...new Set(body.key_ids)] : null,
      description: body.description ?? null,
      balanceLowNanos: threshold.balanceLowNanos ?? null,
      balanceLowPercent: threshold.balanceLowPercent ?? null,
      expiringSoonSeconds: body.expiring_soon_seconds ?? DEFAULT_EXPIRING_SOON_SECONDS,
      secretSealed: this.options.seal.seal(secret),
      paused: false,
      disabledReason: null,
      consecutiveFailures: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.webhooks.create(row);
    return { ...publicWebhook(row), secret };
  }

  /** A live account key, which an endpoint may belong to; else 404. */
  async accountKey(id: string) {
    const account = await this.store.getKey(id);
    if (!account || account.kind !== 'account' || account.revokedAt !== null) {
      throw notFound(`No live account key ${id.slice(0, 64)}: webhooks belong to account keys.`);
    }
    return account;
  }

  async list(accountId?: string): Promise<Webhook[]> {
    return (await this.store.webhooks.list(accountId)).map(publicWebhook);
  }

  /** The endpoint, if `accountId` owns it (any, for the operator); else 404, never 403. */
  async require(id: string, accountId?: string): Promise<WebhookRow> {
    const row = await this.store.webhooks.get(id);
    if (!row || (accountId !== undefined && row.accountId !== accountId)) {
      throw notFound(
        `No webhook ${id.slice(0, 64)} belongs to this caller. List them with GET /v1/webhooks.`,
      );
    }
    return row;
  }

  async show(id: string, accountId?: string): Promise<Webhook> {
    return publicWebhook(await this.require(id, accountId));
  }

  async change(id: string, body: WebhookChange, accountId?: string): Promise<Webhook> {
    const row = await this.require(id, accountId);
    const threshold = thresholdOf(body);
    if (body.key_ids) await this.checkKeys(row.accountId, body.key_ids);
    const update: WebhookUpdate = {
      events: body.events ? [...new Set(body.events)] : undefined,
      description: body.description,
      keyIds: body.key_ids === undefined ? undefined : body.key_ids && [...new Set(body.key_ids)],
      ...threshold,
      expiringSoonSeconds:
        body.expiring_soon_seconds === undefined
          ? undefined
          : (body.expiring_soon_seconds ?? DEFAULT_EXPIRING_SOON_SECONDS),
      paused: body.paused,
      updatedAt: nowSeconds(),
    };
    // Resuming lifts a stop after failures, and starts the count again.
    if (body.paused === false)
      Object.assign(update, { disabledReason: null, consecutiveFailures: 0 });
    await this.store.webhooks.update(id, update);
    if (body.paused === false) this.options.sender?.wake();
    return this.show(id);
  }

  async delete(id: string, accountId?: string): Promise<void> {
    await this.require(id, accountId);
    await this.store.webhooks.delete(id);
  }

  /**
   * Sends a `webhook.test` event now, about the account key, and answers with the delivery as it
   * stands after that first try (pending if it failed: it is retried like any other).
   */
  async test(id: string, accountId?: string): Promise<WebhookDelivery> {
    const row = await this.require(id, accountId);
    const account = await this.store.getKey(row.accountId);
    if (!account) throw notFound(`The account ${row.accountId} of this webhook no longer exists.`);
    const deliveryId = newDeliveryId();
    const payload = keyEventPayload(webhookTestEventType, account, account, {}, new Date());
    await this.store.webhooks.enqueue([
      {
        id: deliveryId,
        webhookId: row.id,
        accountId: row.accountId,
        eventType: webhookTestEventType,
        payload: JSON.stringify(payload),
        createdMs: Date.now(),
      },
    ]);
    await this.options.sender?.sendNow(deliveryId);
    const [delivery] = (await this.store.webhooks.listDeliveries(row.id, 50)).filter(
      (candidate) => candidate.id === deliveryId,
    );
    return publicDelivery(delivery!);
  }

  async deliveries(id: string, limit: number, accountId?: string): Promise<WebhookDelivery[]> {
    await this.require(id, accountId);
    return (await this.store.webhooks.listDeliveries(id, limit)).map(publicDelivery);
  }

  /** `key_ids` must be the account's own keys, not revoked. */
  private async checkKeys(accountId: string, keyIds: string[] | null | undefined): Promise<void> {
    for (const keyId of keyIds ?? []) {
      const key = await this.store.getKey(keyId);
      const own = key && (key.id === accountId || key.parentId === accountId);
      if (!own || key.revokedAt !== null) {
        throw invalidRequest(
          `Invalid field 'key_ids': ${keyId.slice(0, 64)} is not a live key of this account (the account key or one of its child keys).`,
        );
      }
    }
  }
}

/**
 * The balance_low threshold a request sets: one kind, USD or a percent of the limit, and setting
 * one clears the other. A field left out stays as it is (undefined); null clears it.
 */
function thresholdOf(body: {
  balance_low_usd?: number | null;
  balance_low_percent?: number | null;
}): Pick<WebhookUpdate, 'balanceLowNanos' | 'balanceLowPercent'> {
  const { balance_low_usd: usd, balance_low_percent: percent } = body;
  if (usd != null && percent != null) {
    throw invalidRequest(
      "Invalid field 'balance_low_percent': give one threshold, balance_low_usd or balance_low_percent, not both.",
    );
  }
  if (usd != null) return { balanceLowNanos: usdToNanos(usd), balanceLowPercent: null };
  if (percent != null) return { balanceLowNanos: null, balanceLowPercent: percent };
  return { balanceLowNanos: usd, balanceLowPercent: percent };
}

export function publicWebhook(row: WebhookRow): Webhook {
  return {
    object: 'webhook',
    id: row.id,
    account_id: row.accountId,
    url: row.url,
    events: row.events as Webhook['events'],
    description: row.description,
    balance_low_usd: row.balanceLowNanos === null ? null : nanosToUsd(row.balanceLowNanos),
    balance_low_percent: row.balanceLowPercent,
    expiring_soon_seconds: row.expiringSoonSeconds,
    key_ids: row.keyIds,
    status: row.disabledReason !== null ? 'disabled' : row.paused ? 'paused' : 'active',
    disabled_reason: row.disabledReason,
    consecutive_failures: row.consecutiveFailures,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function publicDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    object: 'webhook_delivery',
    id: row.id,
    webhook_id: row.webhookId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    latency_ms: row.latencyMs,
    error: row.error,
    created_at: seconds(row.createdMs)!,
    last_attempt_at: seconds(row.lastAttemptMs),
    next_attempt_at: row.status === 'pending' ? seconds(row.nextAttemptMs) : null,
    payload: JSON.parse(row.payload) as unknown,
  };
}
