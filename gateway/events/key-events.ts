/**
 * Key events, derived from the key rows (and so from the ledger they settle), never from one
 * instance's memory, and written to the webhook outbox:
 * - a key change (create, disable, enable, revoke, rotate, limit) from inside the change's own
 *   transaction, by whoever made it: the command line, the admin API or a key holder;
 * - balance and expiry crossings by `sweep`, after each settlement pass and on a timer.
 * Each crossing is noted once per endpoint in the store (`markFired`), so three instances that
 * see it together send it once. The rules: docs/webhooks.md; why: docs/decisions/0017.
 */
import crypto from 'node:crypto';
import type { WebhookEventType } from '../../contract/webhooks';
import { nanosToUsd, type Nanos } from '../shared/money';
import type { KeyChangeListener, KeyChangeNotice } from '../keys/key-admin';
import { remainingNanos } from '../keys/key-state';
import type { GatewayStore, KeyRow } from '../store/store';
import type { WebhookRow } from '../store/webhooks';
import type { BatchRow, LineCounts } from '../store/batches';

/** Without a threshold of its own, an endpoint's balance_low is 20% of the key's limit. */
export const DEFAULT_BALANCE_LOW_PERCENT = 20;
/** Three days before `expires_at`. */
export const DEFAULT_EXPIRING_SOON_SECONDS = 3 * 86_400;
/** A low balance re-arms once it is back above the threshold by this share of it, or $0.01. */
const REARM_SHARE = 0.1;
const REARM_MIN_NANOS = 10_000_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The lifecycle events one audited change raises. */
function lifecycleEvents(notice: KeyChangeNotice): WebhookEventType[] {
  const events: WebhookEventType[] = [];
  if (notice.action === 'create') events.push('key.created');
  if (notice.action === 'revoke') events.push('key.revoked');
  if (notice.action === 'rotate') events.push('key.rotated');
  if (notice.action === 'period_reset') events.push('key.period_reset');
  const disabled = notice.changes.disabled;
  if (disabled) events.push(disabled.new === true ? 'key.disabled' : 'key.enabled');
  // A creation's or a revocation's limit belongs to that event, not to a change of its own.
  if (notice.changes.limit_usd && !['create', 'revoke'].includes(notice.action)) {
    events.push('key.limit_changed');
  }
  return events;
}

export class KeyEvents {
  constructor(
    private readonly store: GatewayStore,
    private readonly now: () => number = nowSeconds,
  ) {}

  /**
   * Called by KeyAdmin inside the change's transaction: the outbox rows commit (or roll back)
   * with the change, and the key's balance and expiry are looked at again (a recharge re-arms).
   */
  readonly keyChanged: KeyChangeListener = async (notice) => {
    const key = await this.store.getKey(notice.keyId);
    if (!key) return;
    const webhooks = await this.webhooksFor(key);
    if (webhooks.length === 0) return;
    const changes = Object.fromEntries(
      Object.entries(notice.changes).filter(([field]) => field !== 'key'),
    );
    const funding = await this.funding(key);
    for (const type of lifecycleEvents(notice)) {
      for (const webhook of webhooks) {
        if (!webhook.events.includes(type)) continue;
        await this.enqueue(webhook, key, funding, type, { action: notice.action, changes });
      }
    }
    if (key.revokedAt === null) {
      for (const webhook of webhooks) await this.crossings(webhook, key, funding);
    }
  };

  /**
   * Looks at every key of every account with an endpoint, and sends what crossed. Each
   * crossing is noted and enqueued in one transaction.
   */
  async sweep(): Promise<number> {
    const webhooks = (await this.store.webhooks.list()).filter(isActive);
    if (webhooks.length === 0) return 0;
    // Only the accounts with an endpoint, and their children: not every key at every pass.
    const keys = await this.store.listKeys({
      accountIds: [...new Set(webhooks.map((webhook) => webhook.accountId))],
    });
    const byId = new Map(keys.map((key) => [key.id, key]));
    let sent = 0;
    for (const webhook of webhooks) {
      for (const key of keys) {
        if (key.revokedAt !== null || !covers(webhook, key)) continue;
        const funding = key.kind === 'shared_child' ? byId.get(key.parentId ?? '') : key;
        sent += await this.crossings(webhook, key, funding);
      }
    }
    return sent;
  }

  /**
   * A batch ended: `batch.completed`, or `batch.failed` when no line of it succeeded. Written once,
   * whichever instance ended it (`markEventSent` in the same transaction).
   */
  async batchEnded(batch: BatchRow, counts: LineCounts): Promise<number> {
    const key = await this.store.getKey(batch.keyId);
    if (!key) return 0;
    const type: WebhookEventType =
      batch.status === 'completed' && counts.succeeded === 0 ? 'batch.failed' : 'batch.completed';
    const webhooks = (await this.webhooksFor(key)).filter((webhook) =>
      webhook.events.includes(type),
    );
    return this.store.transaction(async () => {
      if (!(await this.store.batches.markEventSent(batch.id))) return 0;
      const payload = {
        type,
        timestamp: new Date().toISOString(),
        data: {
          batch_id: batch.id,
          key_id: key.id,
          key: key.masked,
          account_id: key.kind === 'account' ? key.id : key.parentId,
          status: batch.status,
          endpoint: batch.endpoint,
          request_counts: {
            total: counts.total,
            succeeded: counts.succeeded,
            errored: counts.errored,
            cancelled: counts.cancelled,
          },
          cost_usd: nanosToUsd(counts.costNanos),
        },
      };
      await this.store.webhooks.enqueue(
        webhooks.map((webhook) => ({
          id: newDeliveryId(),
          webhookId: webhook.id,
          accountId: webhook.accountId,
          eventType: type,
          payload: JSON.stringify(payload),
          createdMs: Date.now(),
        })),
      );
      return webhooks.length;
    });
  }

  private async funding(key: KeyRow): Promise<KeyRow | undefined> {
    return key.kind === 'shared_child' && key.parentId !== null
      ? this.store.getKey(key.parentId)
      : key;
  }

  private async webhooksFor(key: KeyRow): Promise<WebhookRow[]> {
    const accountId = key.kind === 'account' ? key.id : key.parentId;
    if (accountId === null) return [];
    return (await this.store.webhooks.list(accountId)).filter(
      (webhook) => isActive(webhook) && covers(webhook, key),
    );
  }

  /** Balance and expiry crossings of one key for one endpoint; how many were enqueued. */
  private async crossings(
    webhook: WebhookRow,
    key: KeyRow,
    funding: KeyRow | undefined,
  ): Promise<number> {
    const now = this.now();
    let sent = 0;
    const fire = async (
      type: WebhookEventType,
      arm: string,
      extra: Record<string, unknown> = {},
    ) => {
      if (!webhook.events.includes(type)) return;
      await this.store.transaction(async () => {
        if (!(await this.store.webhooks.markFired(webhook.id, key.id, type, arm))) return;
        await this.enqueue(webhook, key, funding, type, extra);
        sent += 1;
      });
    };
    const rearm = (type: WebhookEventType) =>
      webhook.events.includes(type)
        ? this.store.webhooks.clearFired(webhook.id, key.id, type)
        : Promise.resolve();

    // A shared child spends its parent's balance: the parent's own events tell of it.
    if (key.kind !== 'shared_child' && funding) {
      const remaining = remainingNanos(funding);
      const threshold = thresholdNanos(webhook, funding);
      if (threshold !== null && threshold > 0) {
        if (remaining < threshold) {
          await fire('key.balance_low', 'below', { threshold_usd: nanosToUsd(threshold) });
        } else if (remaining >= threshold + Math.max(threshold * REARM_SHARE, REARM_MIN_NANOS)) {
          await rearm('key.balance_low');
        }
      }
      if (funding.limitNanos > 0 || funding.consumptionNanos > 0) {
        if (remaining === 0) await fire('key.depleted', 'empty');
        else await rearm('key.depleted');
      }
    }
    if (key.expiresAt !== null) {
      // The arm is the expiry itself: a key given a new expiry is told again.
      const arm = String(key.expiresAt);
      if (now >= key.expiresAt) await fire('key.expired', arm);
      else if (now >= key.expiresAt - webhook.expiringSoonSeconds) {
        await fire('key.expiring_soon', arm, {
          expires_in_seconds: key.expiresAt - now,
        });
      }
    }
    return sent;
  }

  /** `funding` is the key whose balance the event tells (a shared child's parent). */
  private async enqueue(
    webhook: WebhookRow,
    key: KeyRow,
    funding: KeyRow | undefined,
    type: string,
    extra: Record<string, unknown>,
  ): Promise<void> {
    const payload = keyEventPayload(type, key, funding ?? key, extra, new Date());
    await this.store.webhooks.enqueue([
      {
        id: newDeliveryId(),
        webhookId: webhook.id,
        accountId: webhook.accountId,
        eventType: type,
        payload: JSON.stringify(payload),
        createdMs: Date.now(),
      },
    ]);
  }
}

export const newDeliveryId = () => `msg_${crypto.randomBytes(12).toString('base64url')}`;

/** The body a receiver gets: never a full key, money in USD. */
export function keyEventPayload(
  type: string,
  key: KeyRow,
  funding: KeyRow,
  extra: Record<string, unknown>,
  at: Date,
) {
  return {
    type,
    timestamp: at.toISOString(),
    data: {
      key_id: key.id,
      key: key.masked,
      identity: key.kind,
      name: key.name,
      account_id: key.kind === 'account' ? key.id : key.parentId,
      remaining_usd: nanosToUsd(remainingNanos(funding)),
      limit_usd: key.kind === 'shared_child' ? null : nanosToUsd(key.limitNanos),
      expires_at: key.expiresAt,
      ...extra,
    },
  };
}

const isActive = (webhook: WebhookRow) => !webhook.paused && webhook.disabledReason === null;

const covers = (webhook: WebhookRow, key: KeyRow) =>
  (key.id === webhook.accountId || key.parentId === webhook.accountId) &&
  (webhook.keyIds === null || webhook.keyIds.includes(key.id));

/** The endpoint's balance_low threshold for a key: its USD amount, else its share of the limit. */
export function thresholdNanos(webhook: WebhookRow, key: KeyRow): Nanos | null {
  if (webhook.balanceLowNanos !== null) return webhook.balanceLowNanos;
  if (key.limitNanos <= 0) return null;
  const percent = webhook.balanceLowPercent ?? DEFAULT_BALANCE_LOW_PERCENT;
  return Math.round((key.limitNanos * percent) / 100);
}
