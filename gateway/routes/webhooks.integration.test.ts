/**
 * `/v1/webhooks` end to end on loopback: endpoints an account manages, events that fire once per
 * crossing, deliveries signed as Standard Webhooks says (checked with the `standardwebhooks`
 * package, an implementation independent of ours), retried, never following a redirect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { CreatedWebhook, Webhook, WebhookDelivery } from '../../contract/webhooks';
import { startReceiver, type Receiver } from '../../testing/webhook-receiver';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  gateway = await startTestGateway({ settleIntervalMs: 600_000 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await gateway.stop();
  await receiver.close();
});

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      ...bearer(key),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads its own shape
    body: (await response.json()) as any,
  };
};

/** A new account key and an endpoint of its own at a path of the receiver. */
async function accountWithEndpoint(events: string[], extra: Record<string, unknown> = {}) {
  const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  const path = `/hook/${account.id}`;
  const created = await call('POST', '/v1/webhooks', account.key, {
    url: `${receiver.url}${path}`,
    events,
    ...extra,
  });
  expect(created.status).toBe(201);
  return { account, webhook: created.body as CreatedWebhook, path };
}

const receivedAt = (path: string) => receiver.received.filter((request) => request.path === path);
const typesAt = (path: string) =>
  receivedAt(path).map((request) => (JSON.parse(request.body) as { type: string }).type);

describe('webhook endpoints', () => {
  it('are an account key’s own: created with the secret shown once, hidden from other accounts', async () => {
    const { account, webhook } = await accountWithEndpoint(['key.created']);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).toMatchObject({
      status: 'active',
      account_id: account.id,
      expiring_soon_seconds: 259_200,
    });

    const listed = await call('GET', '/v1/webhooks', account.key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: Webhook) => item.id)).toEqual([webhook.id]);
    expect(JSON.stringify(listed.body)).not.toContain(webhook.secret);
    const shown = await call('GET', `/v1/webhooks/${webhook.id}`, account.key);
    expect(shown.body).not.toHaveProperty('secret');

    const other = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    expect((await call('GET', '/v1/webhooks', other.key)).body.data).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${webhook.id}`],
      ['PATCH', `/v1/webhooks/${webhook.id}`, { paused: true }],
      ['DELETE', `/v1/webhooks/${webhook.id}`],
      ['POST', `/v1/webhooks/${webhook.id}/test`],
      ['GET', `/v1/webhooks/${webhook.id}/deliveries`],
    ] as const) {
      const answer = await call(method, path, other.key, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', `/v1/webhooks/${webhook.id}`, account.key)).body.status).toBe(
      'active',
    );
  });

  it('refuse child keys, another account’s keys in key_ids, and two thresholds at once', async () => {
    const { account } = await accountWithEndpoint(['key.created']);
    const child = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      limitUsd: 0.5,
    });
    const refused = await call('GET', '/v1/webhooks', child.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/Only an account key manages webhooks/);

    const stranger = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const foreign = await call('POST', '/v1/webhooks', account.key, {
      url: `${receiver.url}/x`,
      events: ['key.depleted'],
      key_ids: [stranger.id],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/'key_ids'.*not a live key of this account/);

    const both = await call('POST', '/v1/webhooks', account.key, {
      url: `${receiver.url}/x`,
      events: ['key.balance_low'],
      balance_low_usd: 1,
      balance_low_percent: 10,
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/one threshold/);

    const unknown = await call('POST', '/v1/webhooks', account.key, {
      url: `${receiver.url}/x`,
      events: ['key.exploded'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/'events.0'/);

    await gateway.gateway.admin.setDisabled(account.id, true);
    const stopped = await call('POST', '/v1/webhooks', account.key, {
      url: `${receiver.url}/x`,
      events: ['key.created'],
    });
    expect(stopped.status).toBe(402);
    expect(stopped.body.error).toMatch(
      /disabled, so it cannot create, change, rotate or revoke webhooks/,
    );
  });

  it('send a signed test event that an independent verifier accepts, with no full key and no gateway header', async () => {
    const { account, webhook, path } = await accountWithEndpoint(['key.created']);
    const tested = await call('POST', `/v1/webhooks/${webhook.id}/test`, account.key);
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      status: 'delivered',
      attempts: 1,
      response_status: 200,
      event_type: 'webhook.test',
    });

    const [request] = receivedAt(path);
    expect(request).toBeDefined();
    const verified = new StandardWebhook(webhook.secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({
      type: 'webhook.test',
      data: { key_id: account.id, identity: 'account', limit_usd: 1 },
    });
    expect(request!.headers['webhook-id']).toBe(tested.body.id);
    expect(request!.body).not.toContain(account.key);
    expect(request!.body).toContain(account.key.slice(0, 6));
    // Only what a receiver needs: no cf-ray, authorization or other header of the gateway's.
    expect(Object.keys(request!.headers).sort()).toEqual(
      [
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ].sort(),
    );
    // A signature made with another secret is refused by the same verifier.
    expect(() =>
      new StandardWebhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('tell of each change to a key, whoever made it', async () => {
    const { account, path } = await accountWithEndpoint([
      'key.created',
      'key.disabled',
      'key.enabled',
      'key.rotated',
      'key.limit_changed',
      'key.revoked',
    ]);
    const admin = gateway.gateway.admin;
    const child = await call('POST', '/v1/keys', account.key, {
      kind: 'allocated_child',
      limit_usd: 0.25,
    });
    expect(child.status).toBe(201);
    const childId = child.body.data.id as string;
    await admin.setDisabled(childId, true, 'admin');
    await admin.setDisabled(childId, false);
    await call('POST', `/v1/keys/${childId}/rotate`, account.key);
    await admin.set(childId, { limitUsd: 0.5 });
    await call('DELETE', `/v1/keys/${childId}`, account.key);
    const seen = await eventually(() => {
      const types = receivedAt(path)
        .map((request) => JSON.parse(request.body) as { type: string; data: { key_id: string } })
        .filter((event) => event.data.key_id === childId)
        .map((event) => event.type);
      return types.includes('key.revoked') && types.length >= 6 ? types : undefined;
    });
    // Sent side by side, so in any order; each once.
    expect([...seen].sort()).toEqual(
      [
        'key.created',
        'key.disabled',
        'key.enabled',
        'key.rotated',
        'key.limit_changed',
        'key.revoked',
      ].sort(),
    );
    // The allocation lowered the account's own limit: that event is about the account.
    const accountEvents = receivedAt(path)
      .map((request) => JSON.parse(request.body) as { type: string; data: { key_id: string } })
      .filter((event) => event.data.key_id === account.id);
    expect(accountEvents.map((event) => event.type)).toContain('key.limit_changed');
  });

  it('fire balance_low once under concurrent requests, again after a recharge and a new fall', async () => {
    const { account, webhook, path } = await accountWithEndpoint(
      ['key.balance_low', 'key.depleted'],
      {
        balance_low_usd: 0.9999999,
      },
    );
    await Promise.all(
      Array.from({ length: 8 }, () =>
        postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key: account.key }).then((r) =>
          r.text(),
        ),
      ),
    );
    const settleAndSweep = async () => {
      await gateway.gateway.settlement.settleNow();
      await gateway.gateway.events.sweep();
      await gateway.gateway.events.sweep();
    };
    await settleAndSweep();
    await eventually(() => (typesAt(path).length === 1 ? true : undefined));
    await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key: account.key }).then(
      (r) => r.text(),
    );
    await settleAndSweep();
    const first = JSON.parse(receivedAt(path)[0]!.body);
    expect(first).toMatchObject({
      type: 'key.balance_low',
      data: { key_id: account.id, threshold_usd: 0.9999999 },
    });
    expect(first.data.remaining_usd).toBeLessThan(0.9999999);

    // A recharge lifts it well above (re-armed); lowering the limit brings it below again.
    await gateway.gateway.admin.topUp(account.id, {
      kind: 'recharge',
      amountUsd: 1,
      note: 'invoice 1',
    });
    await gateway.gateway.admin.set(account.id, { limitUsd: 1 });
    await eventually(() => (typesAt(path).length === 2 ? true : undefined));
    expect(typesAt(path)).toEqual(['key.balance_low', 'key.balance_low']);
    const deliveries = await call(
      'GET',
      `/v1/webhooks/${webhook.id}/deliveries?limit=10`,
      account.key,
    );
    expect(deliveries.body.data.map((delivery: WebhookDelivery) => delivery.status)).toEqual([
      'delivered',
      'delivered',
    ]);
  });

  it('fire depleted when nothing is left, and expiring_soon then expired around expires_at', async () => {
    const { account, path } = await accountWithEndpoint(
      ['key.depleted', 'key.expiring_soon', 'key.expired'],
      {
        expiring_soon_seconds: 3_600,
      },
    );
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const child = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      limitUsd: 0,
      expiresAt,
    });
    await gateway.gateway.events.sweep();
    await eventually(() => (typesAt(path).includes('key.expiring_soon') ? true : undefined));
    await eventually(async () => {
      await gateway.gateway.events.sweep();
      return typesAt(path).includes('key.expired') ? true : undefined;
    }, 6_000);
    await gateway.gateway.admin.set(account.id, { limitUsd: 0 });
    await gateway.gateway.events.sweep();
    // A limit of 0 with nothing spent is not a depletion; spending to 0 is.
    expect(typesAt(path).filter((type) => type === 'key.depleted')).toEqual([]);
    const events = receivedAt(path).map((request) => JSON.parse(request.body));
    expect(events.find((event) => event.type === 'key.expired').data).toMatchObject({
      key_id: child.id,
      expires_at: expiresAt,
    });
    expect(typesAt(path).filter((type) => type === 'key.expired')).toHaveLength(1);
  });
});

describe('webhook deliveries', () => {
  it('are retried after a 500 with the same webhook-id, and delivered on the 200', async () => {
    const { account, webhook, path } = await accountWithEndpoint(['key.created']);
    receiver.answers.push({ status: 500 });
    const tested = await call('POST', `/v1/webhooks/${webhook.id}/test`, account.key);
    expect(tested.body).toMatchObject({ status: 'pending', response_status: 500, attempts: 1 });
    expect(tested.body.next_attempt_at).not.toBeNull();
    const delivered = await eventually(async () => {
      const { body } = await call('GET', `/v1/webhooks/${webhook.id}/deliveries`, account.key);
      return body.data[0].status === 'delivered' ? body.data[0] : undefined;
    });
    expect(delivered).toMatchObject({ attempts: 2, response_status: 200, error: null });
    const ids = receivedAt(path).map((request) => request.headers['webhook-id']);
    expect(ids).toEqual([tested.body.id, tested.body.id]);
  });

  it('time out a receiver that hangs, and try again', async () => {
    const { account, webhook, path } = await accountWithEndpoint(['key.created']);
    receiver.answers.push('hang');
    const tested = await call('POST', `/v1/webhooks/${webhook.id}/test`, account.key);
    expect(tested.body).toMatchObject({ status: 'pending', response_status: null });
    expect(tested.body.error).toMatch(/No answer within 1000 ms/);
    await eventually(() => (receivedAt(path).length >= 2 ? true : undefined));
  });

  it('do not follow a redirect: the target is never asked, and the try counts as failed', async () => {
    const { account, webhook, path } = await accountWithEndpoint(['key.created']);
    receiver.answers.push({ status: 307, headers: { location: `${receiver.url}/elsewhere` } });
    const tested = await call('POST', `/v1/webhooks/${webhook.id}/test`, account.key);
    expect(tested.body).toMatchObject({ status: 'pending', response_status: 307 });
    expect(tested.body.error).toMatch(/redirect, which is not followed/);
    await eventually(() => (receivedAt(path).length >= 2 ? true : undefined));
    expect(receivedAt('/elsewhere')).toEqual([]);
  });

  it('stop an endpoint after repeated failures, say why in the list, and start again once resumed', async () => {
    const stopper = await startTestGateway({
      webhooks: { allowPrivate: true, retryBaseMs: 20, failureLimit: 3, deliveryTimeoutMs: 1_000 },
    });
    try {
      const account = await stopper.createKey({ kind: 'account', limitUsd: 1 });
      const path = `/fail/${account.id}`;
      const webhook = (await fetch(`${stopper.url}/v1/webhooks`, {
        method: 'POST',
        headers: { ...bearer(account.key), 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}${path}`, events: ['key.created'] }),
      }).then((r) => r.json())) as CreatedWebhook;
      receiver.answers.push({ status: 503 }, { status: 503 }, { status: 503 });
      await fetch(`${stopper.url}/v1/webhooks/${webhook.id}/test`, {
        method: 'POST',
        headers: bearer(account.key),
      });
      const stopped = await eventually(async () => {
        const [listed] = (
          (await fetch(`${stopper.url}/v1/webhooks`, { headers: bearer(account.key) }).then((r) =>
            r.json(),
          )) as { data: Webhook[] }
        ).data;
        return listed?.status === 'disabled' ? listed : undefined;
      });
      expect(stopped.disabled_reason).toMatch(
        /Stopped after 3 failed deliveries in a row.*HTTP 503/,
      );
      expect(receivedAt(path)).toHaveLength(3);

      const resumed = await fetch(`${stopper.url}/v1/webhooks/${webhook.id}`, {
        method: 'PATCH',
        headers: { ...bearer(account.key), 'content-type': 'application/json' },
        body: JSON.stringify({ paused: false }),
      }).then((r) => r.json());
      expect(resumed).toMatchObject({
        status: 'active',
        disabled_reason: null,
        consecutive_failures: 0,
      });
      await eventually(() => (receivedAt(path).length === 4 ? true : undefined));
    } finally {
      await stopper.stop();
    }
  });
});
