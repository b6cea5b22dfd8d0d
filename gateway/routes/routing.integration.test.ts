/**
 * Routing a client or a team can name (docs/routing.md), over real HTTP against fake upstreams:
 * provider preferences in the body and in the header on every form, fallback models (what is
 * reserved, what is charged, what the record says), aliases and presets from the providers file
 * and the admin API, listed in both list shapes of `GET /v1/models`.
 */
import { generationRecordSchema, type GenerationRecord } from '../../contract/gateway';
import { providerPreferencesHeader } from '../../contract/routing';
import { emptyStats } from '../store/provider-stats';
import {
  startFakeUpstream,
  type FakeReply,
  type FakeUpstream,
} from '../../testing/upstreams/fake-upstream';
import { callForm, helloIn, PUBLIC_FORMS } from '../../testing/upstreams/public-forms';
import {
  fixtureEvents,
  providersFileFor,
  type UpstreamProviderSpec,
} from '../../testing/upstreams/upstream-kit';
import { minuteOf } from '../operability/provider-availability';
import {
  bearer,
  getWithKey,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

const ADMIN_TOKEN = 'routing-test-operator-token-0123456789abcdef';
const fakes: Record<string, FakeUpstream> = {};
let gateway: TestGateway;
let key: string;

/** A whole chat completion with a small usage, so charges are exact and never capped. */
const answer = (text = 'Routed answer.'): FakeReply => ({
  body: {
    id: 'chatcmpl-routing',
    object: 'chat.completion',
    created: 1,
    model: 'upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  },
});
const unavailable: FakeReply = {
  status: 503,
  body: { error: { message: 'overloaded', type: 'server_error' } },
};

function provider(id: string, models: string[], prices: [string, string]): UpstreamProviderSpec {
  return {
    id,
    kind: 'openai-compatible',
    url: fakes[id]!.url,
    retry: { max_attempts: 1 },
    breaker: { failure_threshold: 1_000 },
    models: models.map((model) => ({
      id: model,
      upstreamModel: `${id}-model`,
      prompt: prices[0],
      completion: prices[1],
    })),
  };
}

beforeAll(async () => {
  for (const id of ['dear', 'cheap', 'down', 'backup']) {
    fakes[id] = await startFakeUpstream();
    fakes[id].fallback = id === 'down' ? unavailable : answer(`From ${id}.`);
  }
  const setup = providersFileFor([
    // Listed first: without preferences it answers route/shared.
    provider('dear', ['route/shared', 'route/pair'], ['0.000005', '0.00001']),
    provider('cheap', ['route/shared', 'route/pair'], ['0.000001', '0.000002']),
    provider('down', ['route/a'], ['0.00001', '0.00002']),
    provider('backup', ['route/b'], ['0.000001', '0.000002']),
  ]);
  const providers = {
    ...setup.providers,
    aliases: [{ id: 'team/coder', models: ['route/a', 'route/b'] }],
    presets: [
      {
        id: '@preset/reviewer',
        model: 'route/shared',
        provider: { sort: 'price' as const },
        system: 'You review code.',
        parameters: { temperature: 0.2 },
      },
    ],
  };
  gateway = await startTestGateway({ providers, adminToken: ADMIN_TOKEN });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { messages: [{ role: 'user', content: 'Hello' }], max_tokens: 100, ...body },
    { key, headers },
  );

async function recordOf(response: Response): Promise<GenerationRecord> {
  const ray = response.headers.get('cf-ray')!;
  const found = await getWithKey(`${gateway.url}/v1/generation?id=${ray}`, key);
  expect(found.status).toBe(200);
  return generationRecordSchema.parse(await found.json());
}

describe('provider preferences', () => {
  it('sorts by price, and without preferences keeps file order', async () => {
    const plain = await chat({ model: 'route/shared' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-gateway-provider')).toBe('dear');

    const sorted = await chat({ model: 'route/shared', provider: { sort: 'price' } });
    expect(sorted.status).toBe(200);
    expect(sorted.headers.get('x-gateway-provider')).toBe('cheap');
  });

  it('refuses with a 400 naming max_price when every route is over it, charging nothing', async () => {
    // A key of its own, so no other request's charge settles meanwhile.
    const own = (await gateway.createKey({ kind: 'account', limitUsd: 1 })).key;
    const remaining = async () =>
      (
        (await (await getWithKey(`${gateway.url}/v1/balance`, own)).json()) as {
          remaining_usd: number;
        }
      ).remaining_usd;
    const refused = await postJson(
      `${gateway.url}/v1/chat/completions`,
      {
        model: 'route/shared',
        messages: [{ role: 'user', content: 'Hello' }],
        provider: { max_price: { prompt: 0.5, completion: 1 } },
      },
      { key: own },
    );
    expect(refused.status).toBe(400);
    const message = ((await refused.json()) as { error: string }).error;
    expect(message).toContain('provider.max_price');
    expect(message).toContain('prompt 0.5');
    expect(await remaining()).toBe(1);
    const ray = refused.headers.get('cf-ray')!;
    expect((await getWithKey(`${gateway.url}/v1/generation?id=${ray}`, own)).status).toBe(404);
  });

  it('skips a route over max_price or ignored, and the record says why', async () => {
    const capped = await chat({
      model: 'route/shared',
      provider: { max_price: { prompt: 2, completion: 4 } },
    });
    expect(capped.headers.get('x-gateway-provider')).toBe('cheap');
    // A route the preferences skipped is not an attempt.
    expect(capped.headers.get('x-gateway-attempts')).toBeNull();
    expect((await recordOf(capped)).attempts).toEqual([
      { provider: 'dear', status: 'over_max_price', latency_ms: 0 },
      { provider: 'cheap', status: 200, latency_ms: expect.any(Number) },
    ]);

    const ignored = await chat({ model: 'route/shared', provider: { ignore: ['dear'] } });
    expect(ignored.headers.get('x-gateway-provider')).toBe('cheap');
    expect((await recordOf(ignored)).attempts?.[0]).toMatchObject({ status: 'ignored' });

    const ordered = await chat({
      model: 'route/shared',
      provider: { order: ['cheap'], allow_fallbacks: false },
    });
    expect(ordered.headers.get('x-gateway-provider')).toBe('cheap');
    expect((await recordOf(ordered)).attempts?.[0]).toMatchObject({
      provider: 'dear',
      status: 'no_fallbacks',
    });

    const none = await chat({ model: 'route/shared', provider: { only: ['nobody'] } });
    expect(none.status).toBe(400);
  });

  it.each(PUBLIC_FORMS)('takes the preferences header on the %s form', async (form) => {
    const response = await callForm(form, gateway.url, key, 'route/shared', helloIn(form), {
      headers: { [providerPreferencesHeader]: JSON.stringify({ sort: 'price', zdr: true }) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-provider')).toBe('cheap');
    expect(response.headers.get('x-gateway-dropped-params')).toContain('provider.zdr');
  });

  it('lets the body win over the header, and refuses a header that is not JSON', async () => {
    const body = await chat(
      { model: 'route/shared', provider: { sort: 'price', data_collection: 'deny' } },
      { [providerPreferencesHeader]: JSON.stringify({ only: ['cheap', 'dear'], sort: 'latency' }) },
    );
    expect(body.headers.get('x-gateway-provider')).toBe('cheap');
    expect(body.headers.get('x-gateway-dropped-params')).toBe('provider.data_collection');

    const bad = await chat({ model: 'route/shared' }, { [providerPreferencesHeader]: '{sort:' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain(providerPreferencesHeader);
  });

  it('refuses an option it does not honour in strict mode, naming it', async () => {
    const strict = await chat({
      model: 'route/shared',
      provider: { require_parameters: true, zdr: true },
    });
    expect(strict.status).toBe(400);
    expect(await strict.text()).toContain("'provider.zdr'");
  });

  it('sorts by latency from the provider stats, in file order before there are any', async () => {
    const before = await chat({ model: 'route/pair', provider: { sort: 'latency' } });
    expect(before.headers.get('x-gateway-provider')).toBe('dear');
    // The last 30 minutes say `cheap` answers route/shared in under 50 ms and `dear` in seconds.
    const minute = minuteOf(Date.now());
    const fast = emptyStats(minute, 'route/shared', 'cheap');
    const slow = emptyStats(minute, 'route/shared', 'dear');
    fast.latency[0] = 1_000;
    slow.latency[10] = 1_000;
    await gateway.gateway.parts.store.providerStats.add([fast, slow]);
    const after = await chat({ model: 'route/shared', provider: { sort: 'latency' } });
    expect(after.headers.get('x-gateway-provider')).toBe('cheap');
  });
});

describe('fallback models', () => {
  it('answers with the next model when every route of the first fails; the charge is its', async () => {
    const response = await chat({ model: 'route/a', models: ['route/b'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { model: string; usage: { cost: number } };
    expect(body.model).toBe('route/b');
    expect(response.headers.get('x-gateway-provider')).toBe('backup');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    const record = await recordOf(response);
    expect(record.model).toBe('route/b');
    expect(record.requested_model).toBe('route/a');
    expect(record.attempts).toEqual([
      { provider: 'down', status: 503, latency_ms: expect.any(Number), model: 'route/a' },
      { provider: 'backup', status: 200, latency_ms: expect.any(Number), model: 'route/b' },
    ]);
    // route/b's prices: 5 prompt tokens at 1,000 nanos and 3 completion tokens at 2,000.
    expect(record.cost_usd).toBeCloseTo(0.000011, 12);
    expect(body.usage.cost).toBeCloseTo(0.000011, 12);
  });

  it('reserves for the dearest model that may be tried', async () => {
    // Room for route/b's worst case (100 tokens at 2,000 nanos), not route/a's (at 20,000).
    const small = (await gateway.createKey({ kind: 'account', limitUsd: 0.001 })).key;
    const ask = (body: Record<string, unknown>) =>
      postJson(
        `${gateway.url}/v1/chat/completions`,
        { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, ...body },
        { key: small },
      );
    expect((await ask({ model: 'route/b' })).status).toBe(200);
    expect((await ask({ model: 'route/b', models: ['route/a'] })).status).toBe(402);
  });

  it('falls back on the Responses form too', async () => {
    const response = await callForm('responses', gateway.url, key, 'route/a', {
      ...helloIn('responses'),
      models: ['route/b'],
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('route/b');
  });

  it('names a fallback that does not exist', async () => {
    const response = await chat({ model: 'route/b', models: ['route/nothing'] });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("'models'");
  });
});

describe('aliases and presets', () => {
  it('lists them in both list shapes, with a price bound and their members', async () => {
    const list = (await (await fetch(`${gateway.url}/v1/models`)).json()) as {
      data: Array<{ id: string; members?: string[]; pricing: { prompt: string } }>;
    };
    const alias = list.data.find((entry) => entry.id === 'team/coder');
    expect(alias?.members).toEqual(['route/a', 'route/b']);
    // The dearest member's price: route/a's.
    expect(alias?.pricing.prompt).toBe('0.00001');
    const preset = list.data.find((entry) => entry.id === '@preset/reviewer');
    expect(preset?.members).toEqual(['route/shared']);

    const anthropic = (await (
      await fetch(`${gateway.url}/v1/models?limit=1000`, {
        headers: { 'anthropic-version': '2023-06-01' },
      })
    ).json()) as { data: Array<{ id: string; members?: string[] }> };
    expect(anthropic.data.find((entry) => entry.id === 'team/coder')?.members).toEqual([
      'route/a',
      'route/b',
    ]);
    expect(anthropic.data.map((entry) => entry.id)).toContain('@preset/reviewer');

    // The workbench's catalog opens an alias's providers as it does a model's.
    const endpoints = (await (
      await fetch(`${gateway.url}/v1/models/team/coder/endpoints`)
    ).json()) as { model: string; data: Array<{ model: string; provider: string; order: number }> };
    expect(endpoints.model).toBe('team/coder');
    expect(endpoints.data).toMatchObject([
      { model: 'route/a', provider: 'down', order: 1 },
      { model: 'route/b', provider: 'backup', order: 2 },
    ]);
  });

  it.each(PUBLIC_FORMS)('answers through an alias and a preset on the %s form', async (form) => {
    const viaAlias = await callForm(form, gateway.url, key, 'team/coder', helloIn(form));
    expect(viaAlias.status).toBe(200);
    expect(viaAlias.headers.get('x-gateway-provider')).toBe('backup');
    const aliasRecord = await recordOf(viaAlias);
    expect(aliasRecord).toMatchObject({ model: 'route/b', requested_model: 'team/coder' });

    const sent = fakes.cheap!.requests.length;
    const viaPreset = await callForm(form, gateway.url, key, '@preset/reviewer', helloIn(form));
    expect(viaPreset.status).toBe(200);
    expect(viaPreset.headers.get('x-gateway-provider')).toBe('cheap');
    expect(await recordOf(viaPreset)).toMatchObject({
      model: 'route/shared',
      requested_model: '@preset/reviewer',
    });
    const upstream = fakes.cheap!.requests[sent]!.body as {
      messages: Array<{ role: string; content: unknown }>;
      temperature?: number;
    };
    expect(upstream.messages[0]).toMatchObject({ role: 'system', content: 'You review code.' });
    expect(upstream.temperature).toBe(0.2);
  });

  it("tries only the members a key's allowed_models let it use, and refuses when none", async () => {
    const onlyB = (
      await gateway.createKey({ kind: 'account', limitUsd: 1, allowedModels: ['route/b'] })
    ).key;
    const downBefore = fakes.down!.requests.length;
    const viaAlias = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'team/coder', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 100 },
      { key: onlyB },
    );
    expect(viaAlias.status).toBe(200);
    expect(((await viaAlias.json()) as { model: string }).model).toBe('route/b');
    // route/a was never tried: its provider saw nothing.
    expect(fakes.down!.requests.length).toBe(downBefore);

    const elsewhere = (
      await gateway.createKey({ kind: 'account', limitUsd: 1, allowedModels: ['route/shared'] })
    ).key;
    const refused = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'team/coder', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 100 },
      { key: elsewhere },
    );
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('may not use route/a');
  });

  it('falls back through an alias on a streamed Messages answer', async () => {
    fakes.backup!.reply({
      headers: { 'content-type': 'text/event-stream' },
      events: fixtureEvents('openai-compatible', 'openai-text-stream.chunks.txt'),
    });
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      'team/coder',
      helloIn('messages'),
      {
        stream: true,
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('event: message_stop');
    expect(text).toContain('"model":"route/b"');
    expect(await recordOf(response)).toMatchObject({
      model: 'route/b',
      requested_model: 'team/coder',
      outcome: 'completed',
    });
  });

  it("keeps the request's own system prompt after the preset's, and its own parameters", async () => {
    const sent = fakes.cheap!.requests.length;
    const response = await chat({
      model: '@preset/reviewer',
      temperature: 0.9,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(response.status).toBe(200);
    const upstream = fakes.cheap!.requests[sent]!.body as {
      messages: Array<{ role: string; content: string }>;
      temperature?: number;
    };
    const system = upstream.messages.filter((message) => message.role === 'system');
    expect(system.map((message) => message.content).join('\n\n')).toBe(
      'You review code.\n\nBe brief.',
    );
    expect(upstream.temperature).toBe(0.9);
  });

  it('adds, lists and deletes a preset through the admin API', async () => {
    const admin = bearer(ADMIN_TOKEN);
    const preset = { id: '@preset/quick', model: 'team/coder', parameters: { max_tokens: 50 } };
    const added = await postJson(`${gateway.url}/admin/v1/presets`, preset, { headers: admin });
    expect(added.status).toBe(201);
    const listed = (await (
      await fetch(`${gateway.url}/admin/v1/presets`, { headers: admin })
    ).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((entry) => entry.id)).toEqual(['@preset/reviewer', '@preset/quick']);
    const models = (await (await fetch(`${gateway.url}/v1/models`)).json()) as {
      data: Array<{ id: string; members?: string[] }>;
    };
    expect(models.data.find((entry) => entry.id === '@preset/quick')?.members).toEqual([
      'team/coder',
    ]);
    expect((await chat({ model: '@preset/quick' })).status).toBe(200);

    const wrong = await postJson(
      `${gateway.url}/admin/v1/presets`,
      { id: '@preset/wrong', model: 'route/nothing' },
      { headers: admin },
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Invalid field 'model'");

    const deleted = await fetch(`${gateway.url}/admin/v1/presets/quick`, {
      method: 'DELETE',
      headers: admin,
    });
    expect(deleted.status).toBe(200);
    const gone = await chat({ model: '@preset/quick' });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('@preset/quick');
  });
});
