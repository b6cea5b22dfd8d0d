import { modelEntrySchema, modelListSchema } from '../../contract/gateway';
import { parseUsdToNanos } from '../billing/money';
import { expectCfRay, startTestGateway, type TestGateway } from '../testing-support';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.stop();
});

describe('GET /v1/models', () => {
  it('answers without a key, in the OpenAI list shape, with complete entries', async () => {
    const response = await fetch(`${gateway.url}/v1/models`);
    expect(response.status).toBe(200);
    expectCfRay(response);
    const body = modelListSchema.parse(await response.json());
    expect(body.object).toBe('list');
    const entries = body.data.map((entry) => modelEntrySchema.parse(entry));
    expect(entries.length).toBeGreaterThanOrEqual(4);

    for (const entry of entries) {
      expect(entry.id).toMatch(/^[a-z0-9-]+\/[a-z0-9.-]+(:[a-z]+)?$/);
      expect(entry.object).toBe('model');
      expect(typeof entry.name).toBe('string');
      expect(Number.isInteger(entry.created)).toBe(true);
      expect(entry.owned_by).toBe(entry.id.split('/')[0]);
      expect(entry.description).toEqual(expect.any(String));
      expect(entry.context_length).toBeGreaterThan(0);
      // Prices are decimal strings, exact to the nano, never numbers or exponents.
      expect(entry.pricing?.prompt).toMatch(/^\d+(\.\d+)?$/);
      expect(entry.pricing?.completion).toMatch(/^\d+(\.\d+)?$/);
      expect(parseUsdToNanos(entry.pricing!.prompt!)).not.toBeNull();
      expect(entry.architecture?.input_modalities).toContain('text');
      // An embedding model makes vectors, not text, and takes no max_tokens.
      if (entry.architecture?.output_modalities?.includes('embeddings')) {
        expect(entry.architecture.output_modalities).toEqual(['embeddings']);
        continue;
      }
      expect(entry.architecture?.output_modalities).toContain('text');
      expect(entry.supported_parameters).toEqual(expect.arrayContaining(['max_tokens']));
    }

    const paid = entries.filter(
      (entry) =>
        entry.id.startsWith('sim/') &&
        parseUsdToNanos(entry.pricing!.prompt!)! > 0 &&
        parseUsdToNanos(entry.pricing!.completion!)! > 0,
    );
    expect(paid.length).toBeGreaterThanOrEqual(4);
    const free = entries.find((entry) => entry.id.endsWith(':free'));
    expect(free).toBeDefined();
    expect(free!.pricing).toEqual({ prompt: '0', completion: '0' });
    expect(entries.some((entry) => entry.id.endsWith(':batch'))).toBe(true);
    expect(
      entries.find((entry) => entry.id === 'sim/vision-pro')?.architecture?.input_modalities,
    ).toContain('image');
  });

  it('ignores a sent key, even a bogus one, in the header or the query', async () => {
    const plain = await (await fetch(`${gateway.url}/v1/models`)).text();
    const withHeader = await fetch(`${gateway.url}/v1/models`, {
      headers: { authorization: 'Bearer sk-not-a-real-key' },
    });
    expect(withHeader.status).toBe(200);
    expect(await withHeader.text()).toBe(plain);
    const withQuery = await fetch(`${gateway.url}/v1/models?key=nonsense`);
    expect(withQuery.status).toBe(200);
    expect(await withQuery.text()).toBe(plain);
  });

  it('answers 404, not 405, for a path under /v1/models it does not serve, without a wrong hint', async () => {
    for (const path of ['/v1/models/sim/chat-standard', '/v1/models/sim/chat-standard/pricing']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: string };
      expect(body.error).not.toContain('are under /v1');
    }
  });

  it('lists the providers of a model on its endpoints route, and 404s an unknown model there', async () => {
    const response = await fetch(`${gateway.url}/v1/models/sim/chat-standard:free/endpoints`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { model: string; data: Array<Record<string, unknown>> };
    expect(body.model).toBe('sim/chat-standard:free');
    expect(body.data).toEqual([
      expect.objectContaining({
        provider: 'simulated',
        kind: 'simulated',
        order: 1,
        status: 'healthy',
        pricing: { prompt: '0', completion: '0' },
      }),
    ]);
    expect((await fetch(`${gateway.url}/v1/models/sim/nope/endpoints`)).status).toBe(404);
  });
});
