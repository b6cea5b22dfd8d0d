/**
 * docs/keys-and-money.md: no answer and no log line carries a full key. A key sent where no key belongs (a query
 * parameter the gateway does not read, a path segment, an id, a model name) must come back
 * neither in the response body nor in any log line: over real HTTP, with a key minted at run time.
 */
import {
  capturingLogger,
  eventually,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';
import { maskKey } from '../shared/key-masking';

let gateway: TestGateway;
let key: string;
const log = capturingLogger('debug');

beforeAll(async () => {
  gateway = await startTestGateway({}, { logger: log.logger });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 5 })).key;
});
afterAll(() => gateway.stop());

/** Query parameter names a client might wrongly put a key under (the gateway reads only `key`). */
const wrongQueryNames = ['KEY', 'Key', 'api_key', 'apikey', 'token', 'access_token', 'key[]'];

type Sent = { label: string; send: () => Promise<Response> };

function cases(): Sent[] {
  const url = gateway.url;
  const chat = {
    model: 'sim/chat-standard',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 4,
  };
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
  const messages = {
    model: 'sim/chat-standard',
    max_tokens: 4,
    messages: [{ role: 'user', content: 'hi' }],
  };
  const sent: Sent[] = [];
  for (const name of wrongQueryNames) {
    sent.push(
      { label: `GET /v1/balance?${name}=`, send: () => fetch(`${url}/v1/balance?${name}=${key}`) },
      {
        label: `POST /v1/chat/completions?${name}=`,
        send: () => postJson(`${url}/v1/chat/completions?${name}=${key}&x=1`, chat),
      },
      {
        label: `POST /v1beta/…:generateContent?${name}=`,
        send: () =>
          postJson(`${url}/v1beta/models/sim/chat-standard:generateContent?${name}=${key}`, gemini),
      },
    );
  }
  const encoded = `%73%6B%2D${key.slice(3)}`;
  sent.push(
    { label: 'GET /v1/<key>', send: () => fetch(`${url}/v1/${key}`) },
    { label: 'POST /v1/<key>', send: () => postJson(`${url}/v1/${key}`, chat) },
    { label: 'GET /<key>', send: () => fetch(`${url}/${key}?a=${key}`) },
    { label: 'GET /v1/models/<key>', send: () => fetch(`${url}/v1/models/${key}`) },
    { label: 'GET /v1/<percent-encoded key>', send: () => fetch(`${url}/v1/${encoded}`) },
    {
      label: 'DELETE /v1/balance?id=<key> (405)',
      send: () => fetch(`${url}/v1/balance?id=${key}`, { method: 'DELETE' }),
    },
    {
      label: 'POST /v1beta/models/<key>:generateContent',
      send: () =>
        postJson(`${url}/v1beta/models/${key}:generateContent`, gemini, {
          headers: { 'x-goog-api-key': key },
        }),
    },
    {
      label: 'POST /v1/models/<key>:generateContent',
      send: () =>
        postJson(`${url}/v1/models/${key}:generateContent`, gemini, {
          headers: { 'x-goog-api-key': key },
        }),
    },
    {
      label: 'POST /v1beta/models/<percent-encoded key>:generateContent',
      send: () =>
        postJson(`${url}/v1beta/models/${encoded}:generateContent`, gemini, {
          headers: { 'x-goog-api-key': key },
        }),
    },
    {
      label: 'GET /v1/generation?id=<key>',
      send: () =>
        fetch(`${url}/v1/generation?id=${key}`, { headers: { authorization: `Bearer ${key}` } }),
    },
    {
      label: 'GET /v1/generation?id=<key> (no auth)',
      send: () => fetch(`${url}/v1/generation?id=${key}`),
    },
    {
      label: 'chat completion with model <key>',
      send: () => postJson(`${url}/v1/chat/completions`, { ...chat, model: key }, { key }),
    },
    {
      label: 'messages with model <key>',
      send: () =>
        postJson(
          `${url}/v1/messages`,
          { ...messages, model: key },
          { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } },
        ),
    },
    {
      label: 'Authorization: <key> without Bearer',
      send: () => fetch(`${url}/v1/balance`, { headers: { authorization: key } }),
    },
    {
      label: 'Authorization: Basic <key>',
      send: () => fetch(`${url}/v1/balance`, { headers: { authorization: `Basic ${key}` } }),
    },
    {
      label: 'chat completion as text/plain',
      send: () =>
        postJson(`${url}/v1/chat/completions`, chat, {
          key,
          headers: { 'content-type': `text/plain; x=${key}` },
        }),
    },
  );
  return sent;
}

/** The parts of a key that must never be shown: the whole, the secret after `sk-`, its hidden middle. */
const secretParts = () => [key, key.slice(3), key.slice(7, -4)];

describe('a key sent where no key belongs', () => {
  it('is in no response body and no log line, under any parameter name or path position', async () => {
    const all = cases();
    const bodies: Array<{ label: string; status: number; body: string }> = [];
    for (const { label, send } of all) {
      const response = await send();
      bodies.push({ label, status: response.status, body: await response.text() });
    }

    for (const { label, status, body } of bodies) {
      expect(status, label).toBeGreaterThanOrEqual(400);
      for (const part of secretParts()) expect(body, label).not.toContain(part);
    }
    // The places that echo what was sent (model names, ids, paths) echo the key masked.
    expect(bodies.filter(({ body }) => body.includes(maskKey(key))).length).toBeGreaterThanOrEqual(
      5,
    );

    // Every request has been logged (so the scan below is not vacuous).
    await eventually(() => (requestLines().length >= all.length ? true : undefined));
    const text = log.text();
    for (const part of secretParts()) expect(text).not.toContain(part);
    for (const name of wrongQueryNames) expect(text).toContain(`${name}=[redacted]`);
    expect(text).toContain(`/v1/${maskKey(key)}`);
  });
});

function requestLines(): Array<Record<string, unknown>> {
  return log
    .text()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line.path === 'string');
}
