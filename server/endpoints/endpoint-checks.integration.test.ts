import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checksReportSchema,
  type CheckResult,
  type ChecksReport,
} from '../../contract/workbench-api';
import { classifyOutcome, explainOutcome } from './outcome';
import { wholeSentences } from './runner';
import {
  cfRayOf,
  defaultHandler,
  fakeModels,
  sendJson,
  startFakeGateway,
  type FakeGateway,
} from '../test-support/fake-gateway';
import {
  fakeKey,
  openRequest,
  postJson,
  rawRequest,
  startTestBff,
  type TestBff,
} from '../test-support/harness';

let gateway: FakeGateway;
let bff: TestBff;
const key = fakeKey();

beforeAll(async () => {
  gateway = await startFakeGateway((request, response) => {
    const path = request.url.split('?')[0]!;
    if (path === '/v1/responses') return sendJson(response, 501, { error: 'not implemented' });
    if (path === '/v1/embeddings') return sendJson(response, 200, { hello: 'placeholder' });
    if (path.startsWith('/v1beta/') && request.headers.authorization)
      return sendJson(response, 401, { error: 'Bearer not accepted' });
    if (path.startsWith('/v1beta/')) return sendJson(response, 500, { error: 'provider down' });
    if (path === '/v1/generation') return sendJson(response, 404, { error: 'no record' });
    if (path === '/v1/messages') return sendJson(response, 402, { error: 'depleted' });
    defaultHandler(request, response);
  });
  bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: key } });
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

const byId = (results: CheckResult[]) =>
  Object.fromEntries(results.map((result) => [result.id, result]));

/** Runs the checks `body` asks for against a gateway of its own; returns the report and its calls. */
async function runAgainst(
  handler: Parameters<typeof startFakeGateway>[0],
  body: Record<string, unknown>,
): Promise<{ report: ChecksReport; requests: FakeGateway['requests'] }> {
  const own = await startFakeGateway(handler);
  const workbench = await startTestBff({ gatewayBaseUrl: own.baseUrl, profiles: { main: key } });
  try {
    const answer = await postJson(workbench, '/api/checks', { profile: 'main', ...body });
    return { report: checksReportSchema.parse(answer.json()), requests: own.requests };
  } finally {
    await workbench.close();
    await own.close();
  }
}

describe('outcome mapping', () => {
  it.each([
    [200, true, undefined, 'available'],
    [200, false, undefined, 'placeholder'],
    [501, false, undefined, 'placeholder'],
    [404, false, undefined, 'missing'],
    [401, false, undefined, 'unauthorized'],
    [402, false, undefined, 'payment_required'],
    [403, false, undefined, 'forbidden'],
    [500, false, undefined, 'failing'],
    [503, false, undefined, 'failing'],
    [401, false, 401, 'expected_error'],
    [200, true, 401, 'failing'],
  ] as const)('%i (shape ok: %s, expected %s) is %s', (status, shapeOk, expected, outcome) => {
    expect(classifyOutcome(status, shapeOk, expected)).toBe(outcome);
  });
});

describe('/api/checks', () => {
  it('GET shows the plan before any run, paid checks marked with an estimate', async () => {
    const report = checksReportSchema.parse(
      (await rawRequest(bff, { path: '/api/checks?profile=main' })).json(),
    );
    expect(report.ran_at).toBeNull();
    const checks = byId(report.results);
    expect(Object.keys(checks)).toEqual(
      expect.arrayContaining([
        'models-anonymous',
        'models-with-key',
        'chat-completions',
        'chat-completions-stream',
        'balance',
        'messages',
        'gemini-generate-content',
        'responses',
        'generation',
        'model-endpoints',
        'embeddings',
        'auth-query',
        'gemini-bearer-rejected',
      ]),
    );
    // On the free model, inference costs nothing: not paid, so it runs by default.
    expect(checks['chat-completions']).toMatchObject({
      paid: false,
      inference: true,
      outcome: 'skipped',
      ran_at: null,
    });
    expect(checks['chat-completions']!.estimated_cost_usd).toBe(0);
    // Documented and served by this project's gateway: none of these is planned any more.
    for (const id of ['responses', 'embeddings', 'generation', 'model-endpoints'])
      expect(checks[id]).toMatchObject({ planned: false });
    expect(checks.embeddings!.explanation).toBe('Not run yet.');
    // The checks call the cheapest model, here a free one, and the report says so.
    expect(report.model).toEqual({ id: 'sim/echo:free', free: true });
    const authForms = new Set(report.results.map((result) => result.auth_form));
    for (const form of [
      'none',
      'bearer',
      'query',
      'x-api-key',
      'x-goog-api-key',
      'bearer-on-vendor-b',
    ])
      expect(authForms).toContain(form);
  });

  it('a run calls every free check, inference on a free model included', async () => {
    gateway.requests.length = 0;
    const report = checksReportSchema.parse(
      (await postJson(bff, '/api/checks', { profile: 'main' })).json(),
    );
    const checks = byId(report.results);
    // The cheapest model is the free variant: its inference checks cost nothing, so they run.
    const chatCall = gateway.requests.find((request) => request.url === '/v1/chat/completions');
    expect((JSON.parse(chatCall!.body) as { model: string }).model).toBe('sim/echo:free');
    expect(checks['chat-completions']).toMatchObject({
      outcome: 'available',
      paid: false,
      inference: true,
      estimated_cost_usd: 0,
    });
    // No catalog model outputs embeddings: the check says so instead of sending a chat model.
    expect(checks.embeddings).toMatchObject({ outcome: 'skipped', paid: false, inference: true });
    expect(checks.embeddings!.explanation).toBe(
      'The catalog has no embedding model (none lists the output modality "embeddings"), so there is nothing to embed with.',
    );
    expect(gateway.requests.some((request) => request.url === '/v1/embeddings')).toBe(false);
    expect(checks['models-anonymous']).toMatchObject({
      outcome: 'available',
      status: 200,
      cf_ray: cfRayOf(200),
    });
    expect(checks['models-with-key']).toMatchObject({ outcome: 'available' });
    expect(checks.balance).toMatchObject({ outcome: 'available' });
    expect(checks['auth-query']).toMatchObject({ outcome: 'available' });
    expect(checks['gemini-bearer-rejected']).toMatchObject({
      outcome: 'expected_error',
      status: 401,
    });
    // Free and keyless: the providers of the model the checks use (the free variant).
    expect(checks['model-endpoints']).toMatchObject({
      outcome: 'available',
      status: 200,
      path: '/v1/models/sim/echo:free/endpoints',
      auth_form: 'none',
    });
    expect(checks['model-endpoints']!.explanation).toMatch(
      /^Answered with the expected shape\. 1 provider: primary\./,
    );
    const endpointsCall = gateway.requests.find((request) => request.url.endsWith('/endpoints'));
    expect(endpointsCall?.url).toBe('/v1/models/sim/echo:free/endpoints');
    expect(endpointsCall?.headers.authorization).toBeUndefined();
    // The record of the run's own chat call.
    expect(checks.generation).toMatchObject({ path: `/v1/generation?id=${cfRayOf(200)}` });
    expect(typeof checks.balance!.latency_ms).toBe('number');
    // The key went in the form each check names.
    const anonymous = gateway.requests.find(
      (request) => request.url === '/v1/models' && !request.headers.authorization,
    );
    expect(anonymous).toBeDefined();
    expect(gateway.requests.some((request) => request.url === `/v1/balance?key=${key}`)).toBe(true);
  });

  it('with include_paid runs inference checks and reports each outcome', async () => {
    gateway.requests.length = 0;
    const report = checksReportSchema.parse(
      (
        await postJson(bff, '/api/checks', {
          profile: 'main',
          include_paid: true,
          model: 'sim/echo',
        })
      ).json(),
    );
    const checks = byId(report.results);
    expect(checks['chat-completions']).toMatchObject({ outcome: 'available', paid: true });
    expect(checks['chat-completions']!.estimated_cost_usd).toBeGreaterThan(0);
    expect(checks['chat-completions-stream']).toMatchObject({ outcome: 'available' });
    expect(checks.messages).toMatchObject({ outcome: 'payment_required', status: 402 });
    expect(checks.messages!.explanation).toMatch(/Keys page/);
    expect(checks['gemini-generate-content']).toMatchObject({ outcome: 'failing', status: 500 });
    expect(checks.responses).toMatchObject({ outcome: 'placeholder', status: 501 });
    expect(checks['model-endpoints']!.explanation).toMatch(
      /2 providers, in fallback order: primary, backup\./,
    );
    // The generation check asked for this run's chat trace id and was told 404.
    expect(checks.generation).toMatchObject({
      outcome: 'missing',
      path: `/v1/generation?id=${cfRayOf(200)}`,
    });
    const messagesCall = gateway.requests.find(
      (request) => request.url === '/v1/messages' && request.headers['x-api-key'],
    );
    expect(messagesCall?.headers['x-api-key']).toBe(key);
  });

  it('keeps the last report per profile, and `only` reruns just those checks', async () => {
    const kept = checksReportSchema.parse(
      (await rawRequest(bff, { path: '/api/checks?profile=main' })).json(),
    );
    expect(kept.ran_at).not.toBeNull();
    expect(byId(kept.results)['chat-completions']!.outcome).toBe('available');
    gateway.requests.length = 0;
    const rerun = checksReportSchema.parse(
      (await postJson(bff, '/api/checks', { profile: 'main', only: ['balance'] })).json(),
    );
    expect(gateway.requests.map((request) => request.url)).toEqual(
      expect.arrayContaining(['/v1/balance']),
    );
    expect(gateway.requests.some((request) => request.url === '/v1/chat/completions')).toBe(false);
    expect(byId(rerun.results)['chat-completions']!.outcome).toBe('available');
  });
});

describe('/api/checks: the provider endpoints check', () => {
  it('reports the failure when the gateway refuses the route', async () => {
    const { report } = await runAgainst(
      (request, response) =>
        request.url.endsWith('/endpoints')
          ? sendJson(response, 500, { error: 'provider table unavailable' })
          : defaultHandler(request, response),
      { only: ['model-endpoints'] },
    );
    const check = byId(report.results)['model-endpoints']!;
    expect(check).toMatchObject({ outcome: 'failing', status: 500 });
    expect(check.explanation).toMatch(/provider table unavailable/);
  });
});

describe('/api/checks on a paid model', () => {
  it('skips the inference checks and says what they would cost', async () => {
    const report = checksReportSchema.parse(
      (await postJson(bff, '/api/checks', { profile: 'main', model: 'sim/echo' })).json(),
    );
    const chat = byId(report.results)['chat-completions']!;
    expect(chat).toMatchObject({ outcome: 'skipped', paid: true });
    expect(chat.estimated_cost_usd).toBeGreaterThan(0);
    expect(chat.explanation).toMatch(/^Costs money \(it runs inference, about \$0\.\d+\)/);
    expect(report.model).toEqual({ id: 'sim/echo', free: false });
  });
});

describe('/api/checks when the browser leaves', () => {
  it('aborts the gateway call under way', async () => {
    // A gateway that lists its models but then never answers: only the browser leaving can
    // end the check it is running.
    const silent = await startFakeGateway((request, response) => {
      if (request.url.split('?')[0] === '/v1/models') defaultHandler(request, response);
    });
    const held = () => silent.requests.find((sent) => sent.url.split('?')[0] !== '/v1/models');
    const workbench = await startTestBff({
      gatewayBaseUrl: silent.baseUrl,
      profiles: { main: key },
    });
    try {
      const request = openRequest(workbench, 'POST', '/api/checks', {
        profile: 'main',
        include_paid: true,
      });
      await expect.poll(() => held() !== undefined).toBe(true);
      request.destroy();
      // Without the abort the check would wait for the gateway's first-byte timeout.
      await held()!.clientGone;
    } finally {
      await workbench.close();
      await silent.close();
    }
  });
});

describe('/api/checks while the gateway is down', () => {
  it('marks the rows that could not connect, and claims no $0 for a model it cannot name', async () => {
    const gone = await startFakeGateway(defaultHandler);
    await gone.close();
    const workbench = await startTestBff({ gatewayBaseUrl: gone.baseUrl, profiles: { main: key } });
    try {
      const report = checksReportSchema.parse(
        (await postJson(workbench, '/api/checks', { profile: 'main' })).json(),
      );
      const checks = byId(report.results);
      expect(report.model).toBeNull();
      expect(checks.balance).toMatchObject({ outcome: 'failing', gateway_unreachable: true });
      expect(checks['chat-completions']!.gateway_unreachable).toBeUndefined();
      expect(checks['chat-completions']).toMatchObject({ outcome: 'skipped', paid: true });
      expect(checks['chat-completions']!.explanation).toMatch(/catalog could not be read/);
      expect(checks['chat-completions']!.explanation).not.toMatch(/\$0/);
    } finally {
      await workbench.close();
    }
  });
});

describe('/api/checks with an embedding model in the catalog', () => {
  it('embeds with a model whose output is embeddings, free so by default', async () => {
    const { report, requests } = await runAgainst(
      (request, response) => {
        const path = request.url.split('?')[0];
        if (path === '/v1/models') {
          return sendJson(response, 200, {
            object: 'list',
            data: [
              ...fakeModels,
              {
                id: 'sim/embed-small',
                pricing: { prompt: '0' },
                architecture: { input_modalities: ['text'], output_modalities: ['embeddings'] },
              },
            ],
          });
        }
        if (path === '/v1/embeddings') {
          return sendJson(response, 200, {
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [0.6, 0.8] }],
            model: 'sim/embed-small',
            usage: { prompt_tokens: 7, total_tokens: 7 },
          });
        }
        return defaultHandler(request, response);
      },
      { only: ['embeddings'] },
    );
    expect(byId(report.results).embeddings).toMatchObject({ outcome: 'available', paid: false });
    const sent = requests.find((request) => request.url === '/v1/embeddings');
    expect((JSON.parse(sent!.body) as { model: string }).model).toBe('sim/embed-small');
  });
});

describe('/api/checks with a disabled key', () => {
  it('names the state the gateway named, once for the report and in each refused row', async () => {
    const longWords = `${'This key is disabled and every request with it is refused. '.repeat(8)}Ask the owner.`;
    const { report } = await runAgainst(
      (request, response) => {
        const path = request.url.split('?')[0];
        if (path === '/v1/key') {
          return sendJson(response, 200, {
            object: 'key',
            id: 'key_main',
            key: 'sk-…main',
            identity: 'account',
            state: 'disabled',
            can_spend: false,
            blocked_by: null,
            expires_at: null,
          });
        }
        if (path === '/v1/chat/completions') {
          return sendJson(response, 402, { error: { message: longWords, type: 'key_disabled' } });
        }
        return defaultHandler(request, response);
      },
      { only: ['chat-completions', 'chat-completions-stream'] },
    );
    expect(report.key_refusal).toEqual({
      state: 'disabled',
      summary: 'key disabled',
      action: 'Enable',
    });
    const chat = byId(report.results)['chat-completions']!;
    expect(chat).toMatchObject({ outcome: 'payment_required', status: 402 });
    expect(chat.explanation).toMatch(/^HTTP 402: the gateway refuses this key \(key disabled/);
    expect(chat.explanation).toMatch(/Enable on the Keys page/);
  });
});

describe('the gateway’s words in an explanation', () => {
  it('end at a whole sentence, never mid-word', () => {
    const text = `${'The embeddings route needs a model that outputs embeddings. '.repeat(10)}`;
    const kept = wholeSentences(text.trim());
    expect(kept.length).toBeLessThanOrEqual(400);
    expect(kept.endsWith('embeddings.')).toBe(true);
    expect(wholeSentences('short words')).toBe('short words');
    expect(wholeSentences('a'.repeat(10) + ' ' + 'b'.repeat(500))).toBe('aaaaaaaaaa …');
  });
});

describe('the explanation of the Gemini Bearer check', () => {
  it('says the gateway itself refuses the token, not that it is passed upstream', () => {
    const text = explainOutcome('expected_error', {
      status: 401,
      planned: false,
      expectedStatus: 401,
    });
    expect(text).toMatch(/the gateway itself refuses a Bearer token/);
    expect(text).not.toMatch(/upstream and rejected/);
  });
});
