import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSchema } from '../contract/workbench-api';
import { normalizeModelEntry } from './catalog';
import { sendJson, startFakeGateway, type FakeGateway } from './test-support/fake-gateway';
import { rawRequest, startTestBff, type TestBff } from './test-support/harness';

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
