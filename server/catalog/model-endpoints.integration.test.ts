import { afterEach, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  modelEndpointStatsAnswerSchema,
  modelEndpointsSchema,
} from '../../contract/workbench-api';
import type { WorkbenchOptions } from '../app';
import { modelEndpointsPath, normalizeEndpoint } from './model-endpoints';
import {
  cfRayOf,
  defaultHandler,
  endpointEntry,
  sendJson,
  startFakeGateway,
  type FakeGateway,
  type FakeHandler,
} from '../test-support/fake-gateway';
import { fakeKey, rawRequest, startTestBff, type TestBff } from '../test-support/harness';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const key = fakeKey();

/** A fake gateway (the default one, or `endpoints` answering the endpoints route) and a BFF. */
async function start(
  endpoints?: FakeHandler,
  options: Partial<WorkbenchOptions> = {},
): Promise<{ gateway: FakeGateway; bff: TestBff }> {
  const gateway = await startFakeGateway((request, response) =>
    endpoints && request.url.endsWith('/endpoints')
      ? endpoints(request, response)
      : defaultHandler(request, response),
  );
  cleanups.push(() => gateway.close());
  const bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    profiles: { main: key },
    ...options,
  });
  cleanups.push(() => bff.close());
  return { gateway, bff };
}

const endpointsOf = (bff: TestBff, model: string) =>
  rawRequest(bff, { path: `/api/catalog/endpoints?model=${encodeURIComponent(model)}` });

describe('modelEndpointsPath', () => {
  it.each([
    ['sim/echo', '/v1/models/sim/echo/endpoints'],
    ['sim/echo:free', '/v1/models/sim/echo:free/endpoints'],
    // A further slash stays inside the model part: it cannot reach another route.
    ['a/b/c', '/v1/models/a/b%2Fc/endpoints'],
    ['a b/c?d', '/v1/models/a%20b/c%3Fd/endpoints'],
  ])('%s → %s', (id, path) => {
    expect(modelEndpointsPath(id)).toBe(path);
  });
});

describe('normalizeEndpoint', () => {
  it('fills what the gateway left out and maps unknown states to unknown', () => {
    expect(normalizeEndpoint({ provider: 'lone', status: 'trial', surprise: 1 }, 2)).toEqual({
      provider: 'lone',
      kind: null,
      upstream_model: null,
      order: 3,
      prompt_price: null,
      completion_price: null,
      context_length: null,
      max_completion_tokens: null,
      status: 'unknown',
      retry_after: null,
      uptime_last_30m: null,
      latency_ms_p50: null,
      ttft_ms_p50: null,
    });
  });

  it.each([[{}], [{ provider: '' }], [{ provider: 7 }], [null], ['primary']])(
    'skips %j (no provider id)',
    (entry) => {
      expect(normalizeEndpoint(entry, 0)).toBeNull();
    },
  );
});

describe('GET /api/catalog/endpoints', () => {
  it('lists the providers in fallback order with their prices and status, without a key', async () => {
    const { gateway, bff } = await start();
    const response = await endpointsOf(bff, 'sim/echo');
    expect(response.status).toBe(200);
    const body = modelEndpointsSchema.parse(response.json());
    expect(body).toMatchObject({ model: 'sim/echo', cf_ray: cfRayOf(200), skipped: 0 });
    expect(body.endpoints).toEqual([
      {
        provider: 'primary',
        kind: 'openai-compatible',
        upstream_model: 'primary-echo',
        order: 1,
        prompt_price: '0.000001',
        completion_price: '0.000002',
        context_length: 8192,
        max_completion_tokens: 1024,
        status: 'healthy',
        retry_after: null,
        uptime_last_30m: 0.98,
        latency_ms_p50: 850,
        ttft_ms_p50: 210,
      },
      expect.objectContaining({ provider: 'backup', order: 2, status: 'healthy' }),
    ]);
    const sent = gateway.requests.find((request) => request.url.endsWith('/endpoints'));
    expect(sent?.url).toBe('/v1/models/sim/echo/endpoints');
    expect(sent?.headers.authorization).toBeUndefined();
  });

  it('reads a variant id, a cooling-down provider, and skips an entry without a provider', async () => {
    const { gateway, bff } = await start((_request, response) =>
      sendJson(response, 200, {
        object: 'list',
        model: 'sim/echo:free',
        data: [
          endpointEntry('primary', 1, { status: 'cooling_down', retry_after: 25 }),
          { order: 2, status: 'healthy' },
          endpointEntry('backup', 3, { pricing: { prompt: '0.5' }, kind: null }),
        ],
      }),
    );
    const body = modelEndpointsSchema.parse((await endpointsOf(bff, 'sim/echo:free')).json());
    expect(gateway.requests.at(-1)?.url).toBe('/v1/models/sim/echo:free/endpoints');
    expect(body.skipped).toBe(1);
    expect(body.endpoints).toMatchObject([
      { provider: 'primary', status: 'cooling_down', retry_after: 25 },
      { provider: 'backup', order: 3, kind: null, prompt_price: '0.5', completion_price: null },
    ]);
  });

  it('refuses a model the catalog does not have, without asking the gateway for it', async () => {
    const { gateway, bff } = await start();
    const response = await endpointsOf(bff, 'sim/nope');
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'validation',
      field: 'model',
    });
    expect(gateway.requests.some((request) => request.url.endsWith('/endpoints'))).toBe(false);
  });

  it('refuses a request without a model', async () => {
    const { bff } = await start();
    const response = await rawRequest(bff, { path: '/api/catalog/endpoints' });
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ field: 'model' });
  });

  it.each([
    [404, 404, 'validation'],
    [500, 502, 'provider'],
  ])(
    'passes a gateway %i on as %i with its stage, message and cf-ray',
    async (gatewayStatus, status, stage) => {
      const { bff } = await start((_request, response) =>
        sendJson(response, gatewayStatus, {
          error: `Endpoints failed with ${gatewayStatus}`,
          type: 'test',
          stage,
        }),
      );
      const response = await endpointsOf(bff, 'sim/echo');
      expect(response.status).toBe(status);
      expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
        message: `Endpoints failed with ${gatewayStatus}`,
        stage,
        upstream_status: gatewayStatus,
        cf_ray: cfRayOf(gatewayStatus),
      });
    },
  );

  it('says so when the gateway answers something that is not a provider list', async () => {
    const { bff } = await start((_request, response) => sendJson(response, 200, { data: 'no' }));
    const response = await endpointsOf(bff, 'sim/echo');
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'gateway',
      upstream_status: 200,
    });
  });

  it('answers with the staged error of a gateway that does not answer in time', async () => {
    const { bff } = await start(
      () => {
        // Holds the answer: only the BFF's first-byte timeout ends the call.
      },
      { timeouts: { firstByteMs: 150 } },
    );
    const response = await endpointsOf(bff, 'sim/echo');
    expect(response.status).toBe(504);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ stage: 'first_byte' });
  });

  it('answers with the deadline stage when the answer drips in too slowly', async () => {
    const { bff } = await start(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"object":"list",');
        // Never finishes: the body deadline ends the call.
      },
      { timeouts: { bodyDeadlineMs: 150 } },
    );
    const response = await endpointsOf(bff, 'sim/echo');
    expect(response.status).toBe(504);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ stage: 'deadline' });
  });
});

const statsOf = (bff: TestBff, query: string) =>
  rawRequest(bff, { path: `/api/catalog/endpoints/stats?${query}` });

describe('GET /api/catalog/endpoints/stats', () => {
  it.each([
    ['', '24h', 3600],
    ['&window=24h', '24h', 3600],
    ['&window=7d', '7d', 21_600],
  ])(
    'passes the gateway’s series through for window%s, without a key',
    async (suffix, window, bucketSeconds) => {
      const { gateway, bff } = await start();
      const response = await statsOf(bff, `model=sim%2Fecho${suffix}`);
      expect(response.status).toBe(200);
      const body = modelEndpointStatsAnswerSchema.parse(response.json());
      expect(body).toMatchObject({
        object: 'endpoint_stats',
        model: 'sim/echo',
        window,
        bucket_seconds: bucketSeconds,
        cf_ray: cfRayOf(200),
      });
      expect(body.data.map((series) => series.provider)).toEqual(['primary', 'backup']);
      expect(body.data[0]?.buckets[0]).toMatchObject({ requests: 120, successes: 118 });
      expect(body.data[0]?.buckets[1]).toMatchObject({ requests: 0, uptime: null });
      const sent = gateway.requests.find((request) => request.url.includes('/stats'));
      expect(sent?.url).toBe(`/v1/models/sim/echo/endpoints/stats?window=${window}`);
      expect(sent?.headers.authorization).toBeUndefined();
    },
  );

  it('refuses another window, without asking the gateway', async () => {
    const { gateway, bff } = await start();
    const response = await statsOf(bff, 'model=sim%2Fecho&window=30d');
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'validation',
      field: 'window',
    });
    expect(gateway.requests.some((request) => request.url.includes('/stats'))).toBe(false);
  });

  it('refuses a model the catalog does not have', async () => {
    const { gateway, bff } = await start();
    const response = await statsOf(bff, 'model=sim%2Fnope');
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ field: 'model' });
    expect(gateway.requests.some((request) => request.url.includes('/stats'))).toBe(false);
  });

  it('says so when the gateway’s answer breaks the stats contract', async () => {
    const { gateway, bff } = await start();
    gateway.setHandler((request, response) =>
      request.url.includes('/stats')
        ? sendJson(response, 200, {
            object: 'endpoint_stats',
            model: 'sim/echo',
            window: '24h',
            bucket_seconds: 3600,
            data: [{ provider: 'primary', buckets: [{ start: 1, requests: 'many' }] }],
          })
        : defaultHandler(request, response),
    );
    const response = await statsOf(bff, 'model=sim%2Fecho');
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'gateway',
      upstream_status: 200,
    });
  });

  it('passes a gateway error on with its stage and cf-ray', async () => {
    const { gateway, bff } = await start();
    gateway.setHandler((request, response) =>
      request.url.includes('/stats')
        ? sendJson(response, 500, { error: 'Stats failed', type: 'test', stage: 'provider' })
        : defaultHandler(request, response),
    );
    const response = await statsOf(bff, 'model=sim%2Fecho&window=7d');
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      message: 'Stats failed',
      upstream_status: 500,
      cf_ray: cfRayOf(500),
    });
  });
});
