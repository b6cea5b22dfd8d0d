/** `GET /api/generation`: the charge of one request, read with the profile's key. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorSchema, generationChargeSchema } from '../../contract/workbench-api';
import {
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
} from '../test-support/fake-gateway';
import { fakeKey, rawRequest, startTestBff, type TestBff } from '../test-support/harness';

const traceId = '00000000000000aa-TST';

function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    object: 'generation',
    id: traceId,
    model: 'sim/echo',
    provider: 'primary',
    form: 'chat_completions',
    streamed: true,
    prompt_tokens: 11,
    completion_tokens: 98,
    cost_usd: 0.000305,
    finish_reason: null,
    outcome: 'ended_early',
    settlement: 'pending',
    created_at: 1,
    settled_at: null,
    latency_ms: 40,
    attempts: [
      { provider: 'backup', status: 'connect', latency_ms: 3 },
      { provider: 'primary', status: 200, latency_ms: 30 },
    ],
    child: { id: 'key_1', name: 'child', key: 'sk-…abcd' },
    ...overrides,
  };
}

describe('GET /api/generation', () => {
  const key = fakeKey();
  let gateway: FakeGateway;
  let bff: TestBff;

  beforeAll(async () => {
    gateway = await startFakeGateway();
    bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: key } });
  });
  beforeEach(() => {
    gateway.requests.length = 0;
    gateway.setHandler((request, response) => {
      if (request.url.startsWith('/v1/generation?')) return sendJson(response, 200, record());
      return defaultHandler(request, response);
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('reads the record with the profile’s key and passes on the charged figures only', async () => {
    const response = await rawRequest(bff, {
      path: `/api/generation?profile=main&id=${traceId}`,
    });
    expect(response.status).toBe(200);
    expect(generationChargeSchema.parse(response.json())).toMatchObject({
      id: traceId,
      provider: 'primary',
      prompt_tokens: 11,
      completion_tokens: 98,
      cost_usd: 0.000305,
      outcome: 'ended_early',
      usage_estimated: false,
      charge_capped: false,
      attempts: 2,
    });
    expect(response.text).not.toContain('child');
    expect(response.text).not.toContain(key);
    expect(gateway.requests).toHaveLength(1);
    expect(gateway.requests[0]?.url).toBe(`/v1/generation?id=${traceId}`);
    expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('refuses an id that is not a trace id without calling the gateway', async () => {
    for (const id of ['nope', `${traceId}&key=x`, '../balance']) {
      const response = await rawRequest(bff, {
        path: `/api/generation?profile=main&id=${encodeURIComponent(id)}`,
      });
      expect(response.status, id).toBe(400);
      expect(apiErrorSchema.parse(response.json()).error.field).toBe('id');
    }
    expect(gateway.requests).toHaveLength(0);
  });

  it('passes a 404 on as a 404 (the record may not be written yet)', async () => {
    gateway.setHandler((_request, response) =>
      sendJson(response, 404, { error: 'No generation with this id.', type: 'not_found' }),
    );
    const response = await rawRequest(bff, {
      path: `/api/generation?profile=main&id=${traceId}`,
    });
    expect(response.status).toBe(404);
    expect(apiErrorSchema.parse(response.json()).error.upstream_status).toBe(404);
  });

  it('with pending=1, answers a record not written yet with 200 and pending', async () => {
    gateway.setHandler((_request, response) =>
      sendJson(response, 404, { error: 'No generation with this id.', type: 'not_found' }),
    );
    const response = await rawRequest(bff, {
      path: `/api/generation?profile=main&id=${traceId}&pending=1`,
    });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: traceId, pending: true });
  });

  it('says so when the gateway answers something that is not a record', async () => {
    gateway.setHandler((_request, response) => sendJson(response, 200, { object: 'balance' }));
    const response = await rawRequest(bff, {
      path: `/api/generation?profile=main&id=${traceId}`,
    });
    expect(response.status).toBe(502);
  });

  it('names an unknown profile', async () => {
    const response = await rawRequest(bff, {
      path: `/api/generation?profile=nobody&id=${traceId}`,
    });
    expect(response.status).toBe(404);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('profile');
  });
});
