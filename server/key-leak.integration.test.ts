/**
 * A full key must never leave the BFF: this sends requests through every route, with the
 * gateway echoing keys in its errors, and scans every answer (body and headers) and every log
 * line for the key, or a long piece of it. The exceptions, the hand-over answers of a new child
 * key and of a rotated one (docs/security.md), are checked for being the only answers with their
 * key, and no-store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  balanceBody,
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
} from './test-support/fake-gateway';
import {
  fakeKey,
  postJson,
  rawRequest,
  startTestBff,
  type RawResponse,
  type TestBff,
} from './test-support/harness';

let gateway: FakeGateway;
let bff: TestBff;
const key = fakeKey();
/** A key the browser itself pastes into inputs (as a profile, a model, a query parameter). */
const pastedKey = fakeKey();
const responses: RawResponse[] = [];
/** The key the gateway issues for a child key: kept (refused here, no keys store) or handed over. */
const issuedKey = fakeKey();
const handOverPath = '/api/profiles/main/child-keys/hand-over';
/** The hand-over answer, the only one allowed to carry a full key (`issuedKey`). */
let handOver: RawResponse;
/** The new secret the gateway gives `key_handed` when it is rotated and handed over. */
const rotatedKey = fakeKey();
const rotationHandOverPath = '/api/profiles/main/child-keys/key_handed/rotation/hand-over';
/** The rotation's hand-over answer, the only one allowed to carry `rotatedKey`. */
let rotationHandOver: RawResponse;

beforeAll(async () => {
  gateway = await startFakeGateway();
  // A careless gateway: echoes the presented key in error bodies and in the balance.
  gateway.setHandler((request, response) => {
    const presented =
      request.headers.authorization?.replace('Bearer ', '') ??
      (request.headers['x-api-key'] as string | undefined) ??
      (request.headers['x-goog-api-key'] as string | undefined) ??
      new URL(request.url, 'http://x').searchParams.get('key') ??
      'none';
    const path = request.url.split('?')[0];
    if (path === '/v1/balance')
      return sendJson(response, 200, balanceBody({ key: presented, note: `key ${presented}` }));
    if (path === '/v1/chat/completions' && request.body.includes('"stream":true')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: {"error":"upstream refused ${presented}"}\n\n`);
      return;
    }
    if (path === '/v1/chat/completions' && request.body.includes('fail')) {
      return sendJson(response, 402, { error: `Key ${presented} is disabled`, stage: 'admission' });
    }
    if (path === '/v1/responses' && request.body.includes('"stream":true')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const failed = {
        type: 'response.failed',
        response: {
          id: 'resp_1',
          object: 'response',
          model: 'sim/echo',
          status: 'failed',
          error: { code: 'server_error', message: `upstream refused ${presented}` },
          output: [],
        },
      };
      response.end(`event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`);
      return;
    }
    if (path === '/v1/models') return defaultHandler(request, response);
    const handed = (secret: string) => ({
      object: 'api_key',
      id: 'key_handed',
      kind: 'shared_child',
      parent_id: 'key_main',
      name: `issued ${presented}`,
      key: `sk-${secret.slice(3, 7)}…${secret.slice(-4)}`,
      state: 'active',
      limit_usd: null,
      grace_usd: null,
      consumption_usd: null,
      remaining_usd: 1,
      expires_at: null,
      disabled: false,
      created_at: 1_760_000_000,
    });
    if (path === '/v1/keys' && request.method === 'POST') {
      return sendJson(response, 201, {
        object: 'issued_key',
        key: issuedKey,
        data: handed(issuedKey),
      });
    }
    if (path === '/v1/keys/key_handed' && request.method === 'GET') {
      return sendJson(response, 200, handed(issuedKey));
    }
    if (path === '/v1/keys/key_handed/rotate' && request.method === 'POST') {
      return sendJson(response, 200, {
        object: 'issued_key',
        key: rotatedKey,
        data: handed(rotatedKey),
      });
    }
    sendJson(response, 401, { error: `Unknown key ${presented}` });
  });
  bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: key } });
  const chat = (content: string, stream: boolean) => ({
    profile: 'main',
    request: { model: 'sim/echo', messages: [{ role: 'user', content }], stream },
  });
  const calls: Array<Promise<RawResponse>> = [
    rawRequest(bff, { path: '/api/health' }),
    rawRequest(bff, { path: '/api/profiles' }),
    rawRequest(bff, { path: '/api/catalog' }),
    rawRequest(bff, { path: '/api/balance?profile=main' }),
    postJson(bff, '/api/balance/probe', { profile: 'main' }),
    rawRequest(bff, { path: `/api/balance?profile=${pastedKey}` }),
    rawRequest(bff, { path: `/api/balance?profile=main&key=${pastedKey}` }),
    rawRequest(bff, { path: `/api/validate-key/estimate?profile=main&model=${pastedKey}` }),
    rawRequest(bff, { path: '/api/validate-key/estimate?profile=main&model=sim/echo' }),
    rawRequest(bff, { path: '/api/checks?profile=main' }),
    // The gateway answers a generation lookup with an error echoing the key: it is masked.
    rawRequest(bff, { path: '/api/generation?profile=main&id=00000000000000aa-TST' }),
    rawRequest(bff, { path: `/api/generation?profile=${pastedKey}&id=00000000000000aa-TST` }),
    rawRequest(bff, { path: `/api/nothing?key=${pastedKey}` }),
    rawRequest(bff, { path: `/some/page?key=${pastedKey}` }),
    rawRequest(bff, {
      path: '/api/health',
      headers: { host: `evil.example`, authorization: `Bearer ${pastedKey}` },
    }),
  ];
  for (const call of calls) responses.push(await call);
  responses.push(await postJson(bff, '/api/chat', chat('hello', false)));
  responses.push(await postJson(bff, '/api/chat', chat('fail', false)));
  responses.push(await postJson(bff, '/api/chat', chat('hello', true)));
  responses.push(
    await postJson(bff, '/api/chat', {
      profile: pastedKey,
      request: { model: 'sim/echo', messages: [{ role: 'user', content: 'x' }] },
    }),
  );
  responses.push(
    await postJson(bff, '/api/chat', {
      profile: 'main',
      request: { model: pastedKey, messages: [] },
    }),
  );
  // The Responses form and embeddings: the gateway's errors echo the key (401, stream failure).
  responses.push(await postJson(bff, '/api/chat', { ...chat('hello', false), api: 'responses' }));
  responses.push(await postJson(bff, '/api/chat', { ...chat('hello', true), api: 'responses' }));
  const embeddings = { model: 'sim/embed-small', input: ['a', 'b'] };
  responses.push(await postJson(bff, '/api/embeddings', { profile: 'main', request: embeddings }));
  responses.push(
    await postJson(bff, '/api/embeddings', { profile: pastedKey, request: embeddings }),
  );
  responses.push(
    await postJson(bff, '/api/embeddings', {
      profile: 'main',
      request: { ...embeddings, input: [pastedKey, ''] },
    }),
  );
  responses.push(await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' }));
  responses.push(
    await postJson(bff, '/api/validate-key', { profile: pastedKey, model: 'sim/echo' }),
  );
  responses.push(await postJson(bff, '/api/checks', { profile: 'main', include_paid: true }));
  responses.push(await postJson(bff, '/api/checks', { profile: 'main', only: [pastedKey] }));
  // Child keys: kept (refused, there is no keys store), refused hand-overs, then the hand-over.
  const child = { kind: 'shared_child', name: 'given' };
  responses.push(await postJson(bff, '/api/profiles/main/child-keys', child));
  responses.push(await postJson(bff, handOverPath, child));
  responses.push(await postJson(bff, handOverPath, { ...child, name: pastedKey }));
  handOver = await postJson(bff, handOverPath, { ...child, show_once: true });
  responses.push(handOver);
  // The handed-over key rotated: refused without the confirmation, then handed over.
  responses.push(await postJson(bff, rotationHandOverPath, {}));
  responses.push(await postJson(bff, rotationHandOverPath, { show_once: pastedKey }));
  rotationHandOver = await postJson(bff, rotationHandOverPath, { show_once: true });
  responses.push(rotationHandOver);
  responses.push(await rawRequest(bff, { path: '/api/profiles' }));
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

/** The key itself, and a 20-character piece of its middle (a mask shows only its ends). */
const piecesOf = (secret: string) => [secret, secret.slice(10, 30)];

describe('no full key ever leaves the BFF', () => {
  it('really sent the key to the gateway (so the scan below means something)', () => {
    expect(
      gateway.requests.some((request) => request.headers.authorization === `Bearer ${key}`),
    ).toBe(true);
    expect(gateway.requests.some((request) => request.headers['x-api-key'] === key)).toBe(true);
    expect(gateway.requests.some((request) => request.url.includes(`key=${key}`))).toBe(true);
    expect(responses.length).toBeGreaterThan(20);
  });

  it('in no answer body or header, but the hand-over answers’', () => {
    expect(handOver.status, handOver.text).toBe(201);
    expect(rotationHandOver.status, rotationHandOver.text).toBe(200);
    for (const response of responses) {
      const everything = `${response.text}\n${JSON.stringify(response.headers)}`;
      for (const piece of [...piecesOf(key), ...piecesOf(pastedKey)])
        expect(everything).not.toContain(piece);
      if (response !== handOver) {
        for (const piece of piecesOf(issuedKey)) expect(everything).not.toContain(piece);
      }
      if (response !== rotationHandOver) {
        for (const piece of piecesOf(rotatedKey)) expect(everything).not.toContain(piece);
      }
    }
  });

  it.each([
    ['a new key', () => handOver, issuedKey],
    ['a rotated key', () => rotationHandOver, rotatedKey],
  ])(
    'the hand-over answer of %s carries its one key once, never to be cached',
    (_, answer, secret) => {
      expect(responses.filter((response) => response.text.includes(secret))).toEqual([answer()]);
      expect(answer().text.split(secret)).toHaveLength(2);
      expect(answer().headers['cache-control']).toBe('no-store');
    },
  );

  it('masked where the gateway echoed it', () => {
    const balance = JSON.parse(responses[3]!.text) as { balance: { key: string } };
    expect(balance.balance.key).toMatch(/^sk-.{4}….{4}$/);
    const profiles = JSON.parse(responses[1]!.text) as { profiles: Array<{ masked_key: string }> };
    expect(profiles.profiles[0]?.masked_key).toBe(`sk-${key.slice(3, 7)}…${key.slice(-4)}`);
  });

  it('in no log line, and every request was logged once with a request id', async () => {
    await expect
      .poll(() => bff.logLines.filter((line) => line.includes('"msg":"request"')).length)
      .toBe(responses.length);
    const log = bff.logLines.join('');
    for (const secret of [key, pastedKey, issuedKey, rotatedKey]) {
      for (const piece of piecesOf(secret)) expect(log).not.toContain(piece);
    }
    for (const line of bff.logLines.filter((entry) => entry.includes('"msg":"request"'))) {
      expect(JSON.parse(line)).toMatchObject({
        request_id: expect.any(String),
        status: expect.any(Number),
      });
    }
    expect(log).toContain('key=[redacted]');
  });
});
