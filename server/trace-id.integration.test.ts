/**
 * The gateway's `cf-ray` is copied into answers (`cf_ray`), logs and generation lookups, so it
 * is checked against the trace id format first: a gateway (or a proxy before it) putting a key
 * there must not have it echoed, logged, or sent back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  balanceViewSchema,
  chatResultSchema,
  checksReportSchema,
} from '../contract/workbench-api';
import { traceIdOf } from './core/gateway-client';
import {
  balanceBody,
  cfRayOf,
  chunkLine,
  completionBody,
  fakeModels,
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
/** Key-shaped text in the gateway's `cf-ray`: not a profile's key, so no key mask catches it. */
const rayKey = fakeKey();
const responses: RawResponse[] = [];

const chat = (content: string, stream: boolean) => ({
  profile: 'main',
  request: { model: 'sim/echo', messages: [{ role: 'user', content }], stream },
});

beforeAll(async () => {
  gateway = await startFakeGateway((request, response) => {
    const path = request.url.split('?')[0];
    if (path === '/v1/models') return sendJson(response, 200, { data: fakeModels }, rayKey);
    if (path === '/v1/balance') return sendJson(response, 200, balanceBody(), rayKey);
    if (path === '/v1/chat/completions') {
      if (request.body.includes('fail'))
        return sendJson(response, 402, { error: 'refused', stage: 'admission' }, rayKey);
      if (request.body.includes('"stream":true')) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cf-ray': rayKey });
        response.end(`${chunkLine('OK')}data: [DONE]\n\n`);
        return;
      }
      return sendJson(response, 200, completionBody(), rayKey);
    }
    sendJson(response, 404, { error: 'no such route', type: 'not_found' }, rayKey);
  });
  bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: fakeKey() } });
  responses.push(await rawRequest(bff, { path: '/api/catalog' }));
  responses.push(await rawRequest(bff, { path: '/api/balance?profile=main' }));
  responses.push(await postJson(bff, '/api/balance/probe', { profile: 'main', model: 'sim/echo' }));
  responses.push(await postJson(bff, '/api/chat', chat('hello', false)));
  responses.push(await postJson(bff, '/api/chat', chat('fail', false)));
  responses.push(await postJson(bff, '/api/chat', chat('hello', true)));
  responses.push(await postJson(bff, '/api/chat', chat('fail', true)));
  responses.push(await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' }));
  responses.push(await postJson(bff, '/api/checks', { profile: 'main', include_paid: true }));
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

describe('a cf-ray that is not a trace id', () => {
  it('was really sent by the gateway on every answer (so the scans below mean something)', () => {
    expect(gateway.requests.length).toBeGreaterThan(10);
    expect(responses.every((response) => response.status < 500)).toBe(true);
  });

  it('is dropped: null where the answer has a cf_ray field', () => {
    const balance = balanceViewSchema.parse(responses[1]!.json());
    expect(balance.cf_ray).toBeNull();
    const probed = balanceViewSchema.parse(responses[2]!.json());
    expect(probed.probe?.cf_ray).toBeNull();
    expect(chatResultSchema.parse(responses[3]!.json()).meta.cf_ray).toBeNull();
    expect(chatResultSchema.parse(responses[4]!.json()).meta.cf_ray).toBeNull();
    expect(responses[5]!.text).toContain('"cf_ray":null');
    expect(apiErrorSchema.parse(responses[6]!.json()).error.cf_ray).toBeUndefined();
    const checks = checksReportSchema.parse(responses[8]!.json());
    expect(checks.results.every((result) => result.cf_ray === null)).toBe(true);
  });

  it('is in no answer body or header', () => {
    for (const response of responses) {
      expect(`${response.text}\n${JSON.stringify(response.headers)}`).not.toContain(rayKey);
    }
  });

  it('is in no log line', async () => {
    await expect
      .poll(() => bff.logLines.filter((line) => line.includes('"msg":"request"')).length)
      .toBe(responses.length);
    expect(bff.logLines.join('')).not.toContain(rayKey);
  });

  it('is never sent back to the gateway (as a generation id)', () => {
    for (const request of gateway.requests) {
      expect(`${request.url}\n${request.body}`).not.toContain(rayKey.slice(3));
    }
  });
});

describe('traceIdOf', () => {
  it.each([
    [cfRayOf(200), cfRayOf(200)],
    ['8f1e2d3c4b5a6978-AMS', '8f1e2d3c4b5a6978-AMS'],
    [null, null],
    ['', null],
    ['8F1E2D3C4B5A6978-AMS', null],
    ['8f1e2d3c4b5a6978-AMS extra', null],
    ['<script>', null],
  ])('%j gives %j', (value, expected) => {
    expect(traceIdOf(value)).toBe(expected);
  });

  it('drops key-shaped text', () => {
    expect(traceIdOf(fakeKey())).toBeNull();
  });
});
