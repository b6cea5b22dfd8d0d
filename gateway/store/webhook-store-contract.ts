/**
 * The webhook store's contract, run against both engines by their store integration tests; each
 * engine opens three stores over the same data, as three instances would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreFactory } from './store-contract';
import type { GatewayStore } from './store';
import type { NewDelivery, WebhookRow } from './webhooks';

export const webhookRow = (overrides: Partial<WebhookRow> = {}): WebhookRow => ({
  id: 'wh_1',
  accountId: 'key_account',
  url: 'https://hooks.example.test/in',
  events: ['key.balance_low', 'key.created'],
  keyIds: null,
  description: null,
  balanceLowNanos: null,
  balanceLowPercent: 20,
  expiringSoonSeconds: 259_200,
  secretSealed: 'sealed',
  paused: false,
  disabledReason: null,
  consecutiveFailures: 0,
  createdAt: 1_700_000_000,
  updatedAt: 1_700_000_000,
  ...overrides,
});

const delivery = (index: number, overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  id: `msg_${String(index).padStart(3, '0')}`,
  webhookId: 'wh_1',
  accountId: 'key_account',
  eventType: 'key.created',
  payload: JSON.stringify({ type: 'key.created', index }),
  createdMs: 1_000 + index,
  ...overrides,
});

export function describeWebhookStoreContract(factory: StoreFactory): void {
  describe('webhooks', () => {
    let opened: GatewayStore[] = [];
    afterEach(async () => {
      for (const store of opened) await store.close().catch(() => undefined);
      opened = [];
    });
    /** A store over empty data and two more over the same data. */
    const three = async () => {
      const first = await factory.open();
      opened.push(first);
      const second = await factory.openAnother();
      const third = await factory.openAnother();
      opened.push(second, third);
      return [first, second, third] as const;
    };

    it('keeps, lists by account, changes and deletes endpoints with their deliveries', async () => {
      const [store, other] = await three();
      await store.webhooks.create(webhookRow({ keyIds: ['key_a', 'key_b'], balanceLowNanos: 5 }));
      await store.webhooks.create(webhookRow({ id: 'wh_2', accountId: 'key_other' }));
      expect(await other.webhooks.get('wh_1')).toEqual(
        webhookRow({ keyIds: ['key_a', 'key_b'], balanceLowNanos: 5 }),
      );
      expect((await other.webhooks.list('key_account')).map((row) => row.id)).toEqual(['wh_1']);
      expect((await other.webhooks.list()).map((row) => row.id)).toEqual(['wh_1', 'wh_2']);

      await store.webhooks.update('wh_1', {
        events: ['key.depleted'],
        keyIds: null,
        paused: true,
        description: 'ops',
        updatedAt: 1_700_000_100,
      });
      expect(await other.webhooks.get('wh_1')).toMatchObject({
        events: ['key.depleted'],
        keyIds: null,
        paused: true,
        description: 'ops',
        updatedAt: 1_700_000_100,
      });

      await store.webhooks.enqueue([delivery(1)]);
      await store.webhooks.markFired('wh_1', 'key_a', 'key.balance_low', 'below');
      expect(await other.webhooks.delete('wh_1')).toBe(true);
      expect(await store.webhooks.get('wh_1')).toBeUndefined();
      expect(await store.webhooks.listDeliveries('wh_1', 10)).toEqual([]);
      expect(await other.webhooks.delete('wh_1')).toBe(false);
      // The crossing went with it: a new endpoint of the same id starts unfired.
      expect(await store.webhooks.markFired('wh_1', 'key_a', 'key.balance_low', 'below')).toBe(
        true,
      );
    });

    it('notes a crossing once across three instances, and again once re-armed or moved', async () => {
      const stores = await three();
      const noted = await Promise.all(
        stores.flatMap((store) =>
          [1, 2, 3].map(() => store.webhooks.markFired('wh_1', 'key_a', 'key.depleted', 'on')),
        ),
      );
      expect(noted.filter(Boolean)).toHaveLength(1);
      expect(await stores[1].webhooks.markFired('wh_1', 'key_a', 'key.depleted', 'on')).toBe(false);
      // Another key, event or crossing is its own.
      expect(await stores[1].webhooks.markFired('wh_1', 'key_b', 'key.depleted', 'on')).toBe(true);
      expect(await stores[2].webhooks.markFired('wh_1', 'key_a', 'key.expired', '100')).toBe(true);
      expect(await stores[0].webhooks.markFired('wh_1', 'key_a', 'key.expired', '200')).toBe(true);
      expect(await stores[0].webhooks.markFired('wh_1', 'key_a', 'key.expired', '200')).toBe(false);
      await stores[2].webhooks.clearFired('wh_1', 'key_a', 'key.depleted');
      expect(await stores[0].webhooks.markFired('wh_1', 'key_a', 'key.depleted', 'on')).toBe(true);
    });

    it('leases each due delivery to exactly one of three instances, and again once the lease lapses', async () => {
      const stores = await three();
      await stores[0].webhooks.create(webhookRow());
      await stores[0].webhooks.create(webhookRow({ id: 'wh_paused', paused: true }));
      await stores[0].webhooks.enqueue(Array.from({ length: 30 }, (_, index) => delivery(index)));
      await stores[0].webhooks.enqueue([delivery(99, { webhookId: 'wh_paused' })]);
      const now = 10_000;
      const claimed = await Promise.all(
        stores.map((store, index) =>
          store.webhooks.claimDue(`instance_${index}`, now, now + 5_000, 30),
        ),
      );
      const ids = claimed.flat().map((row) => row.id);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      expect(ids).not.toContain('msg_099');
      for (const [index, rows] of claimed.entries()) {
        for (const row of rows) expect(row.leaseOwner).toBe(`instance_${index}`);
      }
      // Leased: nobody else gets them until the lease lapses.
      expect(await stores[1].webhooks.claimDue('late', now + 1, now + 5_000, 30)).toEqual([]);
      const relapsed = await stores[2].webhooks.claimDue('late', now + 5_001, now + 9_000, 100);
      expect(relapsed).toHaveLength(30);
      // Not yet due: untouched.
      await stores[0].webhooks.enqueue([delivery(200, { createdMs: 50_000 })]);
      expect(
        (await stores[0].webhooks.claimDue('any', now + 8_999, now + 10_000, 100)).map(
          (row) => row.id,
        ),
      ).toEqual([]);
      expect(
        (await stores[0].webhooks.claimDue('any', 50_000, 60_000, 100)).map((row) => row.id),
      ).toContain('msg_200');
    });

    it('records a try only by the lease holder, and stops an endpoint after the failure limit', async () => {
      const [store, other] = await three();
      await store.webhooks.create(webhookRow());
      await store.webhooks.enqueue([delivery(1), delivery(2), delivery(3)]);
      const [first] = await store.webhooks.claimDue('owner', 5_000, 9_000, 1);
      expect(first?.id).toBe('msg_001');
      const failed = {
        status: 'pending' as const,
        responseStatus: 500,
        latencyMs: 12,
        error: 'The receiver answered HTTP 500.',
        attemptMs: 5_001,
        nextAttemptMs: 6_000,
      };
      expect(await other.webhooks.recordAttempt('msg_001', 'intruder', failed, 2)).toBe(false);
      expect(await other.webhooks.recordAttempt('msg_001', 'owner', failed, 2)).toBe(true);
      // The lease went with the try: recording it twice is refused.
      expect(await other.webhooks.recordAttempt('msg_001', 'owner', failed, 2)).toBe(false);
      const row = (await store.webhooks.listDeliveries('wh_1', 10)).find(
        (delivered) => delivered.id === 'msg_001',
      );
      expect(row).toMatchObject({
        status: 'pending',
        attempts: 1,
        responseStatus: 500,
        nextAttemptMs: 6_000,
        leaseOwner: null,
      });
      expect((await store.webhooks.get('wh_1'))?.consecutiveFailures).toBe(1);

      const again = await store.webhooks.claimOne('msg_002', 'owner', 7_000, 9_000);
      expect(again?.id).toBe('msg_002');
      expect(await store.webhooks.claimOne('msg_002', 'other', 7_001, 9_000)).toBeUndefined();
      await store.webhooks.recordAttempt('msg_002', 'owner', { ...failed, status: 'failed' }, 2);
      const stopped = await store.webhooks.get('wh_1');
      expect(stopped?.consecutiveFailures).toBe(2);
      expect(stopped?.disabledReason).toMatch(/2 failed deliveries in a row.*HTTP 500/);
      // A stopped endpoint's deliveries wait.
      expect(await store.webhooks.claimDue('owner', 100_000, 200_000, 10)).toEqual([]);

      await store.webhooks.update('wh_1', { disabledReason: null, consecutiveFailures: 0 });
      const resumed = await store.webhooks.claimDue('owner', 100_000, 200_000, 10);
      expect(resumed.map((row) => row.id)).toEqual(['msg_001', 'msg_003']);
      await store.webhooks.recordAttempt(
        'msg_003',
        'owner',
        { ...failed, status: 'delivered', responseStatus: 204, error: null, nextAttemptMs: null },
        2,
      );
      expect(await store.webhooks.listDeliveries('wh_1', 1)).toMatchObject([
        { id: 'msg_003', status: 'delivered', responseStatus: 204 },
      ]);
      expect((await store.webhooks.get('wh_1'))?.consecutiveFailures).toBe(0);
    });
  });
}
