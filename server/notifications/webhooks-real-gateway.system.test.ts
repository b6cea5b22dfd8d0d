/**
 * Notification endpoints through the BFF against the real gateway process, with webhooks to
 * private addresses allowed and a receiver on loopback: create (the secret once, no-store, kept
 * nowhere), a signed test delivery, the deliveries list, pause and resume, delete, a child
 * profile's refusal, and no other answer or log line carrying a `whsec_` secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  createdProfileWebhookSchema,
  deletedProfileWebhookSchema,
  profileWebhookSchema,
  profileWebhooksSchema,
  webhookDeliveriesSchema,
  webhookTestResultSchema,
} from '../../contract/workbench-api';
import { rawRequest, type RawResponse } from '../test-support/harness';
import { startRealGatewayTeam, type RealGatewayTeam } from '../test-support/real-gateway-team';
import { signatureOf, startReceiver, type Receiver } from '../../testing/webhook-receiver';

let team: RealGatewayTeam;
let receiver: Receiver;
let receiverUrl: string;
const answers: RawResponse[] = [];
const send = async (method: string, route: string, body?: unknown) => {
  const response = await rawRequest(team.bff, {
    method,
    path: route,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  answers.push(response);
  return response;
};
const errorOf = (response: RawResponse) => apiErrorSchema.parse(response.json()).error;

beforeAll(async () => {
  // 204, so the delivery's recorded status is the receiver's own and not a default.
  receiver = await startReceiver({ status: 204 });
  receiverUrl = `${receiver.url}/hooks`;
  team = await startRealGatewayTeam({
    childLimitUsd: '1',
    gatewayEnvironment: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
});

afterAll(async () => {
  await team?.stop();
  await receiver?.close();
});

describe('notification endpoints of an account profile', () => {
  let id = '';
  let secret = '';

  it('creates one: the secret in that answer once, never cached, in no log line', async () => {
    const response = await send('POST', '/api/profiles/team/webhooks', {
      url: receiverUrl,
      events: ['key.balance_low', 'key.depleted'],
      balance_low_usd: 1,
      expiring_soon_seconds: 3 * 86_400,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const answer = createdProfileWebhookSchema.parse(response.json());
    ({ secret } = answer);
    id = answer.webhook.id;
    expect(response.text.split(secret)).toHaveLength(2);
    expect(answer.webhook).toMatchObject({
      url: receiverUrl,
      events: ['key.balance_low', 'key.depleted'],
      balance_low_usd: 1,
      status: 'active',
      account_id: team.account.id,
    });
    await expect
      .poll(() => team.bff.logLines.some((line) => line.includes('webhook endpoint created')))
      .toBe(true);
    expect(team.bff.logLines.join('')).not.toContain(secret.slice(6));
  });

  it('lists and shows it without the secret', async () => {
    const list = await send('GET', '/api/profiles/team/webhooks');
    expect(list.status, list.text).toBe(200);
    const webhooks = profileWebhooksSchema.parse(list.json());
    expect(webhooks.webhooks.map((webhook) => webhook.id)).toEqual([id]);
    const shown = await send('GET', `/api/profiles/team/webhooks/${id}`);
    expect(profileWebhookSchema.parse(shown.json()).webhook.url).toBe(receiverUrl);
  });

  it('sends a test event the receiver gets signed, and lists its delivery', async () => {
    const response = await send('POST', `/api/profiles/team/webhooks/${id}/test`, {});
    expect(response.status, response.text).toBe(200);
    const { delivery } = webhookTestResultSchema.parse(response.json());
    expect(delivery).toMatchObject({
      event_type: 'webhook.test',
      status: 'delivered',
      response_status: 204,
    });
    const request = receiver.received.find((entry) => entry.headers['webhook-id'] === delivery.id);
    expect(request).toBeDefined();
    const signatures = String(request!.headers['webhook-signature']).split(' ');
    expect(signatures).toContain(signatureOf(secret, request!));
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'webhook.test' });

    const list = await send('GET', `/api/profiles/team/webhooks/${id}/deliveries?limit=5`);
    expect(list.status, list.text).toBe(200);
    const { deliveries } = webhookDeliveriesSchema.parse(list.json());
    expect(deliveries[0]).toMatchObject({ id: delivery.id, status: 'delivered' });
  });

  it('pauses and resumes it', async () => {
    const paused = await send('PATCH', `/api/profiles/team/webhooks/${id}`, { paused: true });
    expect(paused.status, paused.text).toBe(200);
    expect(profileWebhookSchema.parse(paused.json()).webhook.status).toBe('paused');
    const resumed = await send('PATCH', `/api/profiles/team/webhooks/${id}`, { paused: false });
    expect(profileWebhookSchema.parse(resumed.json()).webhook.status).toBe('active');
  });

  it('refuses bad input naming the field, before asking the gateway', async () => {
    const noEvents = await send('POST', '/api/profiles/team/webhooks', {
      url: receiverUrl,
      events: [],
    });
    expect(noEvents.status).toBe(400);
    expect(errorOf(noEvents).field).toBe('events');
    const nothing = await send('PATCH', `/api/profiles/team/webhooks/${id}`, {});
    expect(nothing.status).toBe(400);
    const badLimit = await send('GET', `/api/profiles/team/webhooks/${id}/deliveries?limit=0`);
    expect(errorOf(badLimit).field).toBe('limit');
  });

  it('passes a child profile’s 403 on, saying only an account key manages endpoints', async () => {
    const response = await send('GET', '/api/profiles/ci/webhooks');
    expect(response.status).toBe(403);
    expect(errorOf(response).advice).toContain('Only an account key manages notification');
  });

  it('deletes it, and then knows it no more', async () => {
    const deleted = await send('DELETE', `/api/profiles/team/webhooks/${id}`, {});
    expect(deleted.status, deleted.text).toBe(200);
    expect(deletedProfileWebhookSchema.parse(deleted.json())).toEqual({ id, deleted: true });
    const gone = await send('GET', `/api/profiles/team/webhooks/${id}`);
    expect(gone.status).toBe(404);
    expect(errorOf(gone).advice).toContain('no such notification endpoint');
  });

  it('carried a secret in the creation’s answer only', () => {
    const carrying = answers.filter((answer) =>
      `${JSON.stringify(answer.headers)}${answer.text}`.includes('whsec_'),
    );
    expect(carrying).toHaveLength(1);
    expect(carrying[0]!.status).toBe(201);
  });
});
