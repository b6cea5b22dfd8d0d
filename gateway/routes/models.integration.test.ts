import Anthropic from '@anthropic-ai/sdk';
import { modelEntrySchema, modelListSchema } from '../../contract/gateway';
import { parseUsdToNanos } from '../shared/money';
import { expectCfRay, startTestGateway, type TestGateway } from '../../testing/gateway-support';

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

/** Claude Code's model picker and the vendor's SDK send `anthropic-version`, and their key. */
const ANTHROPIC = { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-not-checked' };

type AnthropicList = {
  data: Array<Record<string, unknown> & { id: string }>;
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
};

async function anthropicList(query = ''): Promise<AnthropicList> {
  const response = await fetch(`${gateway.url}/v1/models${query}`, { headers: ANTHROPIC });
  expect(response.status).toBe(200);
  expect(response.headers.get('vary')).toBe('anthropic-version');
  return (await response.json()) as AnthropicList;
}

const catalog = async () =>
  modelListSchema
    .parse(await (await fetch(`${gateway.url}/v1/models`)).json())
    .data.map((entry) => modelEntrySchema.parse(entry));

const anthropicClient = () =>
  new Anthropic({ baseURL: gateway.url, apiKey: 'sk-not-checked', maxRetries: 0 });

describe('GET /v1/models with anthropic-version', () => {
  it("answers Anthropic's list shape, newest first, with every catalog model", async () => {
    const body = await anthropicList('?limit=1000');
    const entries = await catalog();
    expect(Object.keys(body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id']);
    expect(body.has_more).toBe(false);
    expect(body.data.map((model) => model.id).sort()).toEqual(
      entries.map((entry) => entry.id).sort(),
    );
    expect(body.first_id).toBe(body.data[0]!.id);
    expect(body.last_id).toBe(body.data.at(-1)!.id);
    const created = body.data.map((model) => Date.parse(model.created_at as string));
    expect(created).toEqual([...created].sort((one, other) => other - one));
    for (const model of body.data) {
      const entry = entries.find((candidate) => candidate.id === model.id)!;
      expect(model).toEqual({
        type: 'model',
        id: entry.id,
        display_name: entry.name,
        // RFC 3339, in whole seconds as the vendor writes it.
        created_at: new Date(entry.created! * 1000).toISOString().replace('.000Z', 'Z'),
        max_input_tokens: entry.context_length,
        max_tokens: (entry.top_provider as { max_completion_tokens: number }).max_completion_tokens,
      });
    }
  });

  it('pages as the vendor documents: 20 by default, after_id and before_id, has_more that way', async () => {
    const all = (await anthropicList('?limit=1000')).data.map((model) => model.id);
    expect(all.length).toBeGreaterThan(3);
    expect((await anthropicList()).data).toHaveLength(Math.min(20, all.length));

    const first = await anthropicList('?limit=2');
    expect(first.data.map((model) => model.id)).toEqual(all.slice(0, 2));
    expect(first.has_more).toBe(true);
    const second = await anthropicList(`?limit=2&after_id=${encodeURIComponent(first.last_id!)}`);
    expect(second.data.map((model) => model.id)).toEqual(all.slice(2, 4));
    const last = await anthropicList(`?after_id=${encodeURIComponent(all.at(-2)!)}`);
    expect(last.data.map((model) => model.id)).toEqual([all.at(-1)]);
    expect(last.has_more).toBe(false);

    const before = await anthropicList(`?limit=2&before_id=${encodeURIComponent(all[3]!)}`);
    expect(before.data.map((model) => model.id)).toEqual(all.slice(1, 3));
    expect(before.has_more).toBe(true);
    const start = await anthropicList(`?limit=5&before_id=${encodeURIComponent(all[1]!)}`);
    expect(start.data.map((model) => model.id)).toEqual([all[0]]);
    expect(start.has_more).toBe(false);
  });

  it("refuses a bad page in the vendor's error shape, naming the parameter", async () => {
    for (const [query, named] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=many', 'limit'],
      ['?after_id=nobody%2Fnothing', 'after_id'],
      ['?after_id=sim%2Fchat-standard&before_id=sim%2Fvision-pro', 'before_id'],
    ] as const) {
      const response = await fetch(`${gateway.url}/v1/models${query}`, { headers: ANTHROPIC });
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as {
        type: string;
        error: { type: string; message: string };
      };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toContain(named);
    }
  });

  it('keeps the present shape without the header, whatever the query', async () => {
    const plain = await fetch(`${gateway.url}/v1/models`);
    const text = await plain.text();
    expect(JSON.parse(text)).toMatchObject({ object: 'list' });
    const withQuery = await fetch(`${gateway.url}/v1/models?limit=1&after_id=sim%2Fnothing`, {
      headers: { 'x-api-key': 'sk-not-checked' },
    });
    expect(withQuery.status).toBe(200);
    expect(await withQuery.text()).toBe(text);
  });

  it("serves the official client's list, paging forwards and backwards, and retrieve", async () => {
    const all = (await anthropicList('?limit=1000')).data.map((model) => model.id);
    const client = anthropicClient();
    const listed: string[] = [];
    for await (const model of client.models.list({ limit: 2 })) {
      expect(model.type).toBe('model');
      expect(typeof model.display_name).toBe('string');
      listed.push(model.id);
    }
    expect(listed).toEqual(all);

    // Backwards from the last model: each page is the one before, in list order.
    const backwards: string[] = [];
    for await (const page of (
      await client.models.list({ limit: 2, before_id: all.at(-1)! })
    ).iterPages())
      backwards.unshift(...page.data.map((model) => model.id));
    expect(backwards).toEqual(all.slice(0, -1));

    // The client puts the id into the path encoded, slash included.
    const model = await client.models.retrieve('sim/chat-standard');
    expect(model).toMatchObject({ type: 'model', id: 'sim/chat-standard' });
    expect(model.display_name).toBe(
      (await catalog()).find((entry) => entry.id === 'sim/chat-standard')!.name,
    );
    // A bare name that only one model has resolves to its full id, as an alias does there.
    expect((await client.models.retrieve('vision-pro')).id).toBe('sim/vision-pro');
    const missing = await client.models.retrieve('nobody/nothing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error' },
    });
  });

  it('answers one model in the present shape without the header, and 404s in that shape', async () => {
    const entry = (await catalog()).find((candidate) => candidate.id === 'sim/chat-standard:free');
    const response = await fetch(`${gateway.url}/v1/models/sim%2Fchat-standard%3Afree`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(entry);
    const missing = await fetch(`${gateway.url}/v1/models/nobody%2Fnothing`);
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: string; type: string };
    expect(body.type).toBe('model_not_found');
    expect(body.error).toContain('nobody/nothing');
  });
});
