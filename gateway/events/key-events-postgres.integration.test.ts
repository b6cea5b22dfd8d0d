/**
 * Three gateways on one PostgreSQL store, as three instances: a balance that crosses because of
 * requests served on all three fires once, however many of them sweep at the same moment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestSchema,
  postgresAvailable,
  type TestSchema,
} from '../../testing/upstreams/shared-services';
import { startReceiver, type Receiver } from '../../testing/webhook-receiver';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

const available = await postgresAvailable('the three-instance key events test');

describe.runIf(available)('key events on PostgreSQL with three instances', () => {
  let schema: TestSchema;
  let receiver: Receiver;
  let instances: TestGateway[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('key_events');
    receiver = await startReceiver();
    for (let index = 0; index < 3; index += 1) {
      instances.push(
        await startTestGateway({ databaseUrl: schema.url, settleIntervalMs: 600_000 }),
      );
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    instances = [];
    await receiver.close();
    await schema.drop();
  });

  it('fire balance_low once for a crossing made on all three', async () => {
    const [first] = instances;
    const account = await first!.createKey({ kind: 'account', limitUsd: 1 });
    const created = await fetch(`${first!.url}/v1/webhooks`, {
      method: 'POST',
      headers: { ...bearer(account.key), 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${receiver.url}/three`,
        events: ['key.balance_low'],
        balance_low_usd: 0.9999999,
      }),
    });
    expect(created.status).toBe(201);
    for (const instance of instances) await instance.refreshKeys();

    // Requests on every instance at once, then every instance settles and sweeps at once.
    await Promise.all(
      instances.flatMap((instance) =>
        Array.from({ length: 4 }, () =>
          postJson(`${instance.url}/v1/chat/completions`, chatBody(), { key: account.key }).then(
            (response) => response.text(),
          ),
        ),
      ),
    );
    await Promise.all(instances.map((instance) => instance.gateway.settlement.settleNow()));
    // (Two calls on one instance may share a sweep under way: the outbox is what counts.)
    await Promise.all(
      instances.flatMap((instance) => [
        instance.gateway.events.sweep(),
        instance.gateway.events.sweep(),
      ]),
    );
    await eventually(() => (receiver.received.length >= 1 ? true : undefined));
    const rows = await schema.query<{ count: string }>(
      "SELECT count(*) FROM webhook_deliveries WHERE event_type = 'key.balance_low'",
    );
    expect(Number(rows[0]!.count)).toBe(1);
    // Delivered once, by one of the three (the lease keeps the others off it).
    await eventually(async () => {
      const [row] = await schema.query<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM webhook_deliveries',
      );
      return row?.status === 'delivered' ? row : undefined;
    });
    expect(receiver.received.filter((request) => request.path === '/three')).toHaveLength(1);
  });
});
