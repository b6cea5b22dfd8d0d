import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  catalogSchema,
  healthSchema,
  type EmbeddedGatewayStatus,
} from '../../contract/workbench-api';
import { normalizeModelEntry } from './catalog';
import {
  sendJson,
  startFakeGateway,
  type FakeGateway,
  type RecordedRequest,
} from '../test-support/fake-gateway';
import { rawRequest, startTestBff, type TestBff } from '../test-support/harness';

describe('normalizeModelEntry', () => {
  it('pulls out the known fields and keeps the entry whole in raw', () => {
    const entry = {
      id: 'acme/rocket:free',
      name: 'Rocket',
      created: 5,
      context_length: 1000,
      top_provider: { context_length: 1000, max_completion_tokens: 256 },
      pricing: { prompt: '0', completion: 0.5, image: '1' },
      architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
      supported_parameters: ['tools', 7],
      providers: ['primary', null, 'backup'],
      unknown_field: { deep: [1, 2] },
    };
    expect(normalizeModelEntry(entry)).toEqual({
      id: 'acme/rocket:free',
      name: 'Rocket',
      author: 'acme',
      variant: 'free',
      description: '',
      created: 5,
      context_length: 1000,
      max_completion_tokens: 256,
      prompt_price: '0',
      completion_price: '0.5',
      input_modalities: ['text', 'image'],
      output_modalities: ['text'],
      supported_parameters: ['tools'],
      providers: ['primary', 'backup'],
      raw: entry,
    });
  });

  it('tolerates missing and mistyped fields', () => {
    expect(
      normalizeModelEntry({
        id: 'solo',
        name: 42,
        pricing: 'free',
        architecture: null,
        created: 'yesterday',
      }),
    ).toMatchObject({
      id: 'solo',
      name: 'solo',
      author: '',
      variant: null,
      created: null,
      prompt_price: null,
      input_modalities: [],
      providers: [],
    });
  });

  it.each([[{}], [{ id: '' }], [{ id: 7 }], [null], ['sim/x'], [[1]]])(
    'skips %j (no id)',
    (entry) => {
      expect(normalizeModelEntry(entry)).toBeNull();
    },
  );
});

describe('GET /api/catalog', () => {
  let gateway: FakeGateway;
  let bff: TestBff;
  let version = 0;

  beforeAll(async () => {
    gateway = await startFakeGateway((_request, response) => {
      version += 1;
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: `sim/v${version}`, surprise: true }, { no_id: 1 }],
        extra_top_level: 1,
      });
    });
    bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, catalogTtlMs: 60_000 });
  });

  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('returns models, counts skipped entries, and is cached briefly', async () => {
    const first = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    expect(first.models.map((model) => model.id)).toEqual(['sim/v1']);
    expect(first.models[0]?.raw).toEqual({ id: 'sim/v1', surprise: true });
    expect(first.skipped).toBe(1);
    const second = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    expect(second.models[0]?.id).toBe('sim/v1');
    expect(gateway.requests).toHaveLength(1);
    expect(gateway.requests[0]?.headers.authorization).toBeUndefined();
    const refreshed = catalogSchema.parse(
      (await rawRequest(bff, { path: '/api/catalog?refresh=1' })).json(),
    );
    expect(refreshed.models[0]?.id).toBe('sim/v2');
  });

  it('drops the cached catalog when a refresh fails, so a reload reports the outage too', async () => {
    const cached = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    gateway.setHandler((_request, response) =>
      sendJson(response, 500, { error: 'The catalog store is down.' }),
    );
    try {
      expect((await rawRequest(bff, { path: '/api/catalog?refresh=1' })).status).toBe(502);
      // Before the fix, this plain reload answered 200 with the cached catalog.
      expect((await rawRequest(bff, { path: '/api/catalog' })).status).toBe(502);
    } finally {
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, { object: 'list', data: [{ id: 'sim/back' }] }),
      );
    }
    const back = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    expect(back.fetched_at).toBeGreaterThanOrEqual(cached.fetched_at);
    expect(back.models[0]?.id).toBe('sim/back');
  });
});

describe('GET /api/catalog after a failed health check', () => {
  let gateway: FakeGateway;
  let bff: TestBff;
  let catalogRequests = 0;

  /** A gateway that serves its catalog, the model named by how many catalogs it served. */
  function serveCatalog() {
    gateway.setHandler((_request, response) => {
      catalogRequests += 1;
      sendJson(response, 200, { object: 'list', data: [{ id: `sim/v${catalogRequests}` }] });
    });
  }

  beforeAll(async () => {
    gateway = await startFakeGateway();
    serveCatalog();
    bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, catalogTtlMs: 60_000 });
  });

  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('keeps the cache while health checks pass', async () => {
    const first = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(health.reachable).toBe(true);
    const again = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    expect(again.fetched_at).toBe(first.fetched_at);
  });

  it.each([
    [
      'cuts the connection',
      (_request: RecordedRequest, response: ServerResponse) => response.socket?.destroy(),
    ],
    [
      'answers 503',
      (_request: RecordedRequest, response: ServerResponse) =>
        sendJson(response, 503, { error: { message: 'Down for maintenance.' } }),
    ],
  ])(
    'drops the cache once a health check finds the gateway failing (it %s), so a reload reports it',
    async (_what, failing) => {
      serveCatalog();
      const cached = (await rawRequest(bff, { path: '/api/catalog' })).status;
      expect(cached).toBe(200);
      gateway.setHandler(failing);
      try {
        const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
        expect(health.error).toBeTruthy();
        // Without a Refresh: before the fix, this plain reload answered 200 from the cache.
        const reload = await rawRequest(bff, { path: '/api/catalog' });
        expect([502, 504]).toContain(reload.status);
        expect(apiErrorSchema.parse(reload.json()).error.message).toBeTruthy();
      } finally {
        serveCatalog();
      }
      const back = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
      expect(back.models[0]?.id).toBe(`sim/v${catalogRequests}`);
    },
  );
});

describe('GET /api/catalog while the embedded gateway restarts', () => {
  it('is asked of the gateway again once health has seen its process stopped', async () => {
    let served = 0;
    const gateway = await startFakeGateway((_request, response) => {
      served += 1;
      sendJson(response, 200, { object: 'list', data: [{ id: `sim/v${served}` }] });
    });
    const running: EmbeddedGatewayStatus = {
      state: 'running',
      attempt: 0,
      restarts: 0,
      last_exit: null,
      retry_in_ms: null,
    };
    let process = running;
    const bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      catalogTtlMs: 60_000,
      mode: 'embedded',
      embeddedGateway: () => process,
    });
    try {
      const first = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
      expect(first.models[0]?.id).toBe('sim/v1');
      process = {
        state: 'restarting',
        attempt: 1,
        restarts: 1,
        last_exit: 'signal SIGKILL',
        retry_in_ms: 500,
      };
      // The supervisor's word is enough: health does not call the gateway, yet drops the cache.
      expect(
        healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json()).error,
      ).toBeTruthy();
      process = running;
      const next = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
      expect(next.models[0]?.id).toBe('sim/v2');
    } finally {
      await bff.close();
      await gateway.close();
    }
  });
});
