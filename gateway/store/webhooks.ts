/**
 * Webhook endpoints, the outbox of their deliveries, and the crossings already told: a store by
 * data type, written once over SqlDatabase for both engines. The store contract suite
 * (webhook-store-contract.ts) runs it on SQLite and on PostgreSQL with three instances.
 */
import type { SqlDatabase } from './sql-database';

export type WebhookRow = {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  /** Only these keys of the account; null: all of them. */
  keyIds: string[] | null;
  description: string | null;
  balanceLowNanos: number | null;
  balanceLowPercent: number | null;
  expiringSoonSeconds: number;
  secretSealed: string;
  paused: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  createdAt: number;
  updatedAt: number;
};

export type WebhookUpdate = Partial<
  Pick<
    WebhookRow,
    | 'events'
    | 'keyIds'
    | 'description'
    | 'balanceLowNanos'
    | 'balanceLowPercent'
    | 'expiringSoonSeconds'
    | 'paused'
    | 'disabledReason'
    | 'consecutiveFailures'
    | 'updatedAt'
  >
>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export type DeliveryRow = {
  /** The `webhook-id` header. */
  id: string;
  webhookId: string;
  accountId: string;
  eventType: string;
  /** The body, exactly as signed and sent. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptMs: number | null;
  leaseOwner: string | null;
  leaseUntilMs: number | null;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  createdMs: number;
  lastAttemptMs: number | null;
};

export type NewDelivery = Pick<
  DeliveryRow,
  'id' | 'webhookId' | 'accountId' | 'eventType' | 'payload' | 'createdMs'
>;

/** One try's outcome, as the sender records it. */
export type AttemptResult = {
  status: DeliveryStatus;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  attemptMs: number;
  /** For a delivery still pending: when to try again. */
  nextAttemptMs: number | null;
};

export interface WebhookStore {
  create(row: WebhookRow): Promise<void>;
  get(id: string): Promise<WebhookRow | undefined>;
  /** One account's endpoints, or (no account) every endpoint; oldest first. */
  list(accountId?: string): Promise<WebhookRow[]>;
  update(id: string, update: WebhookUpdate): Promise<void>;
  /** Deletes the endpoint with its deliveries and crossings; whether there was one. */
  delete(id: string): Promise<boolean>;
  /** Writes deliveries to the outbox (inside the caller's transaction, when there is one). */
  enqueue(deliveries: NewDelivery[]): Promise<void>;
  /**
   * Notes that the endpoint told of this crossing (`arm` tells one crossing of an event from the
   * next). True for the one caller that noted it first, on any instance.
   */
  markFired(webhookId: string, keyId: string, eventType: string, arm: string): Promise<boolean>;
  /** Re-arms: the next crossing fires again. */
  clearFired(webhookId: string, keyId: string, eventType: string): Promise<void>;
  /**
   * Leases up to `limit` pending deliveries that are due, whose endpoint is active and that no
   * live lease holds: each to exactly one caller across instances.
   */
  claimDue(
    owner: string,
    nowMs: number,
    leaseUntilMs: number,
    limit: number,
  ): Promise<DeliveryRow[]>;
  /** Leases one delivery now, whether due or not (a test event, sent at once). */
  claimOne(
    id: string,
    owner: string,
    nowMs: number,
    leaseUntilMs: number,
  ): Promise<DeliveryRow | undefined>;
  /** Gives a lease back untried. */
  release(id: string, owner: string): Promise<void>;
  /**
   * Records a try by the lease's owner (false, and nothing written, for anyone else), and counts
   * it against the endpoint: a success clears its failures; `failureLimit` in a row stops it.
   */
  recordAttempt(
    id: string,
    owner: string,
    result: AttemptResult,
    failureLimit: number,
  ): Promise<boolean>;
  /** An endpoint's newest deliveries first. */
  listDeliveries(webhookId: string, limit: number): Promise<DeliveryRow[]>;
}

type Record_ = Record<string, unknown>;
const num = (value: unknown) => Number(value);
const numOrNull = (value: unknown) =>
  value === null || value === undefined ? null : Number(value);
const strOrNull = (value: unknown) =>
  value === null || value === undefined ? null : String(value);

const toWebhook = (record: Record_): WebhookRow => ({
  id: String(record.id),
  accountId: String(record.account_id),
  url: String(record.url),
  events: JSON.parse(String(record.events)) as string[],
  keyIds: record.key_ids === null ? null : (JSON.parse(String(record.key_ids)) as string[]),
  description: strOrNull(record.description),
  balanceLowNanos: numOrNull(record.balance_low_nanos),
  balanceLowPercent: numOrNull(record.balance_low_percent),
  expiringSoonSeconds: num(record.expiring_soon_seconds),
  secretSealed: String(record.secret_sealed),
  paused: num(record.paused) === 1,
  disabledReason: strOrNull(record.disabled_reason),
  consecutiveFailures: num(record.consecutive_failures),
  createdAt: num(record.created_at),
  updatedAt: num(record.updated_at),
});

const toDelivery = (record: Record_): DeliveryRow => ({
  id: String(record.id),
  webhookId: String(record.webhook_id),
  accountId: String(record.account_id),
  eventType: String(record.event_type),
  payload: String(record.payload),
  status: String(record.status) as DeliveryStatus,
  attempts: num(record.attempts),
  nextAttemptMs: numOrNull(record.next_attempt_ms),
  leaseOwner: strOrNull(record.lease_owner),
  leaseUntilMs: numOrNull(record.lease_until_ms),
  responseStatus: numOrNull(record.response_status),
  latencyMs: numOrNull(record.latency_ms),
  error: strOrNull(record.error),
  createdMs: num(record.created_ms),
  lastAttemptMs: numOrNull(record.last_attempt_ms),
});

/** Columns of `WebhookUpdate`, and how each is written. */
const updateColumns: {
  [K in keyof Required<WebhookUpdate>]: [string, (value: WebhookUpdate[K]) => unknown];
} = {
  events: ['events', (value) => JSON.stringify(value)],
  keyIds: ['key_ids', (value) => (value === null ? null : JSON.stringify(value))],
  description: ['description', (value) => value],
  balanceLowNanos: ['balance_low_nanos', (value) => value],
  balanceLowPercent: ['balance_low_percent', (value) => value],
  expiringSoonSeconds: ['expiring_soon_seconds', (value) => value],
  paused: ['paused', (value) => (value ? 1 : 0)],
  disabledReason: ['disabled_reason', (value) => value],
  consecutiveFailures: ['consecutive_failures', (value) => value],
  updatedAt: ['updated_at', (value) => value],
};

/** A pending delivery that is due and free, of an active endpoint. */
const dueCondition = `d.status = 'pending' AND d.next_attempt_ms <= ?
  AND (d.lease_until_ms IS NULL OR d.lease_until_ms < ?)
  AND d.webhook_id IN (SELECT id FROM webhooks WHERE paused = 0 AND disabled_reason IS NULL)`;

export function webhookStore(
  db: SqlDatabase,
  transaction: <T>(work: () => Promise<T>) => Promise<T>,
): WebhookStore {
  return {
    async create(row) {
      await db.run(
        `INSERT INTO webhooks (id, account_id, url, events, key_ids, description, balance_low_nanos,
           balance_low_percent, expiring_soon_seconds, secret_sealed, paused, disabled_reason,
           consecutive_failures, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id,
          row.accountId,
          row.url,
          JSON.stringify(row.events),
          row.keyIds === null ? null : JSON.stringify(row.keyIds),
          row.description,
          row.balanceLowNanos,
          row.balanceLowPercent,
          row.expiringSoonSeconds,
          row.secretSealed,
          row.paused ? 1 : 0,
          row.disabledReason,
          row.consecutiveFailures,
          row.createdAt,
          row.updatedAt,
        ],
      );
    },
    async get(id) {
      const [record] = await db.all<Record_>('SELECT * FROM webhooks WHERE id = ?', [id]);
      return record ? toWebhook(record) : undefined;
    },
    async list(accountId) {
      const records =
        accountId === undefined
          ? await db.all<Record_>('SELECT * FROM webhooks ORDER BY created_at, id')
          : await db.all<Record_>(
              'SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, id',
              [accountId],
            );
      return records.map(toWebhook);
    },
    async update(id, update) {
      const entries = Object.entries(update).filter(([, value]) => value !== undefined) as [
        keyof WebhookUpdate,
        never,
      ][];
      if (entries.length === 0) return;
      const columns = entries.map(([field]) => `${updateColumns[field][0]} = ?`);
      const values = entries.map(([field, value]) => updateColumns[field][1](value));
      await db.run(`UPDATE webhooks SET ${columns.join(', ')} WHERE id = ?`, [...values, id]);
    },
    delete: (id) =>
      transaction(async () => {
        await db.run('DELETE FROM webhook_deliveries WHERE webhook_id = ?', [id]);
        await db.run('DELETE FROM webhook_fired WHERE webhook_id = ?', [id]);
        return (await db.run('DELETE FROM webhooks WHERE id = ?', [id])) > 0;
      }),
    async enqueue(deliveries) {
      for (const delivery of deliveries) {
        await db.run(
          `INSERT INTO webhook_deliveries (id, webhook_id, account_id, event_type, payload, status,
             attempts, next_attempt_ms, created_ms)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
          [
            delivery.id,
            delivery.webhookId,
            delivery.accountId,
            delivery.eventType,
            delivery.payload,
            delivery.createdMs,
            delivery.createdMs,
          ],
        );
      }
    },
    async markFired(webhookId, keyId, eventType, arm) {
      // Inserted, or moved to a new crossing: returned. Already noted: no row, on either engine.
      const rows = await db.all(
        `INSERT INTO webhook_fired (webhook_id, key_id, event_type, arm) VALUES (?, ?, ?, ?)
         ON CONFLICT (webhook_id, key_id, event_type) DO UPDATE SET arm = excluded.arm
         WHERE webhook_fired.arm <> excluded.arm
         RETURNING webhook_id`,
        [webhookId, keyId, eventType, arm],
      );
      return rows.length > 0;
    },
    async clearFired(webhookId, keyId, eventType) {
      await db.run(
        'DELETE FROM webhook_fired WHERE webhook_id = ? AND key_id = ? AND event_type = ?',
        [webhookId, keyId, eventType],
      );
    },
    async claimDue(owner, nowMs, leaseUntilMs, limit) {
      // One statement: atomic on SQLite (one writer at a time); on PostgreSQL, rows another
      // instance is claiming are skipped rather than waited for.
      const records = await db.all<Record_>(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_until_ms = ?
         WHERE id IN (SELECT d.id FROM webhook_deliveries d WHERE ${dueCondition}
           ORDER BY d.next_attempt_ms, d.id LIMIT ?
           ${db.engine === 'postgres' ? 'FOR UPDATE OF d SKIP LOCKED' : ''})
         RETURNING *`,
        [owner, leaseUntilMs, nowMs, nowMs, limit],
      );
      return records.map(toDelivery);
    },
    async claimOne(id, owner, nowMs, leaseUntilMs) {
      const [record] = await db.all<Record_>(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_until_ms = ?
         WHERE id = ? AND status = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms < ?)
         RETURNING *`,
        [owner, leaseUntilMs, id, nowMs],
      );
      return record ? toDelivery(record) : undefined;
    },
    async release(id, owner) {
      await db.run(
        `UPDATE webhook_deliveries SET lease_owner = NULL, lease_until_ms = NULL
         WHERE id = ? AND lease_owner = ?`,
        [id, owner],
      );
    },
    recordAttempt: (id, owner, result, failureLimit) =>
      transaction(async () => {
        const [record] = await db.all<{ webhook_id: string }>(
          `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_ms = ?,
             lease_owner = NULL, lease_until_ms = NULL, response_status = ?, latency_ms = ?,
             error = ?, last_attempt_ms = ?
           WHERE id = ? AND lease_owner = ? AND status = 'pending'
           RETURNING webhook_id`,
          [
            result.status,
            result.nextAttemptMs,
            result.responseStatus,
            result.latencyMs,
            result.error,
            result.attemptMs,
            id,
            owner,
          ],
        );
        if (!record) return false;
        if (result.status === 'delivered') {
          await db.run('UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?', [
            record.webhook_id,
          ]);
        } else {
          await db.run(
            `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
               disabled_reason = CASE WHEN consecutive_failures + 1 >= ? AND disabled_reason IS NULL
                 THEN ? ELSE disabled_reason END
             WHERE id = ?`,
            [
              failureLimit,
              `Stopped after ${failureLimit} failed deliveries in a row (the last: ${result.error ?? `HTTP ${result.responseStatus}`}). Fix the receiver, then resume the endpoint (PATCH with "paused": false).`,
              record.webhook_id,
            ],
          );
        }
        return true;
      }),
    async listDeliveries(webhookId, limit) {
      const records = await db.all<Record_>(
        `SELECT * FROM webhook_deliveries WHERE webhook_id = ?
         ORDER BY created_ms DESC, id DESC LIMIT ?`,
        [webhookId, limit],
      );
      return records.map(toDelivery);
    },
  };
}
