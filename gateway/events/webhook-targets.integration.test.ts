/**
 * Webhook targets the gateway must refuse without GATEWAY_WEBHOOK_ALLOW_PRIVATE, before it opens
 * any connection. Names resolve through a stub (no name leaves this process), and every
 * outgoing HTTP request is spied on: none may be made toward a refused target.
 */
import http from 'node:http';
import https from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  bearer,
  eventually,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

/** What each test name resolves to, changed by the rebinding test between two lookups. */
const names = new Map<string, string[]>([
  ['internal.example.test', ['10.0.0.1']],
  ['mixed.example.test', ['93.184.216.34', '127.0.0.1']],
  ['metadata.example.test', ['169.254.169.254']],
  ['v6-loopback.example.test', ['::1']],
  ['rebind.example.test', ['93.184.216.34']],
]);
const lookups: string[] = [];
const resolve = async (hostname: string) => {
  lookups.push(hostname);
  const found = names.get(hostname);
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

let gateway: TestGateway;
let key: string;
const requests = [vi.spyOn(http, 'request'), vi.spyOn(https, 'request')];

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      webhooks: {
        allowPrivate: false,
        retryBaseMs: 50,
        failureLimit: 20,
        deliveryTimeoutMs: 1_000,
      },
    },
    { resolve },
  );
  ({ key } = await gateway.createKey({ kind: 'account', limitUsd: 1 }));
});
afterAll(() => gateway.stop());
afterEach(() => {
  for (const spy of requests) spy.mockClear();
});

const create = (url: string) =>
  fetch(`${gateway.url}/v1/webhooks`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['key.created'] }),
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { error?: string; id?: string },
  }));

/** Outgoing requests the gateway made (the test's own fetch goes through undici, not these). */
const outgoing = () => requests.reduce((sum, spy) => sum + spy.mock.calls.length, 0);

describe('without GATEWAY_WEBHOOK_ALLOW_PRIVATE, a webhook URL', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', /only https URLs are allowed; this one is http/],
    ['http://example.com/hook', /only https URLs are allowed/],
    ['https://127.0.0.1/hook', /The address 127\.0\.0\.1 is not a public address/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is not a public address/],
    ['https://[::1]/hook', /The address ::1 is not a public address/],
    ['https://[::ffff:127.0.0.1]/hook', /::ffff:7f00:1 is not a public address/],
    ['https://[::ffff:a9fe:a9fe]/hook', /not a public address/],
    ['https://[fd00::1]/hook', /not a public address/],
    [
      'https://internal.example.test/hook',
      /internal\.example\.test resolves to 10\.0\.0\.1, which is not a public address/,
    ],
    ['https://mixed.example.test/hook', /resolves to 127\.0\.0\.1/],
    ['https://metadata.example.test/hook', /resolves to 169\.254\.169\.254/],
    ['https://v6-loopback.example.test/hook', /resolves to ::1/],
    ['https://nowhere.example.test/hook', /does not resolve \(ENOTFOUND\)/],
    ['https://user:pass@example.com/hook', /user name or password/],
    ['not a url', /is not a URL/],
  ])('%s is refused with a 400 that says why, and nothing is sent', async (url, why) => {
    const answer = await create(url);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^Invalid field 'url': /);
    expect(answer.body.error).toMatch(why);
    if (/not a public address/.test(answer.body.error ?? '')) {
      expect(answer.body.error).toMatch(/GATEWAY_WEBHOOK_ALLOW_PRIVATE=true/);
    }
    expect(outgoing()).toBe(0);
  });

  it('that resolved to a public address when added is checked again at each delivery (rebinding)', async () => {
    const created = await create('https://rebind.example.test/hook');
    expect(created.status).toBe(201);
    // The name now points at loopback: the delivery is refused before any connection.
    names.set('rebind.example.test', ['127.0.0.1']);
    lookups.length = 0;
    const tested = await fetch(`${gateway.url}/v1/webhooks/${created.body.id}/test`, {
      method: 'POST',
      headers: bearer(key),
    }).then((response) => response.json() as Promise<{ status: string; error: string }>);
    expect(lookups).toContain('rebind.example.test');
    expect(tested.status).toBe('pending');
    expect(tested.error).toMatch(
      /rebind\.example\.test resolves to 127\.0\.0\.1, which is not a public address/,
    );
    // Its retry is refused the same way.
    await eventually(async () => {
      const { data } = (await fetch(`${gateway.url}/v1/webhooks/${created.body.id}/deliveries`, {
        headers: bearer(key),
      }).then((response) => response.json())) as { data: Array<{ attempts: number }> };
      return data[0]!.attempts >= 2 ? true : undefined;
    });
    expect(outgoing()).toBe(0);
  });
});
