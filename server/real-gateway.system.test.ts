/**
 * Route tests against the real gateway process (spawned on its own port and database), with
 * keys minted by its command line as a person would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cfRayPattern, generationRecordSchema } from '../contract/gateway';
import {
  balanceViewSchema,
  batchDetailViewSchema,
  catalogSchema,
  chatResultSchema,
  tokenCountSchema,
  checksReportSchema,
  healthSchema,
  modelEndpointsSchema,
  profilesSchema,
  validateKeyResultSchema,
  type CheckResult,
} from '../contract/workbench-api';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import {
  openStream,
  postJson,
  rawRequest,
  startTestBff,
  type TestBff,
} from './test-support/harness';

let gateway: GatewayProcess;
let bff: TestBff;
const keys: Record<string, string> = {};

beforeAll(async () => {
  // A slow simulated model, so a stream is still running when the test looks at it.
  gateway = await startGatewayProcess({ environment: { GATEWAY_SIM_TOKENS_PER_SECOND: '25' } });
  const account = await gateway.createKey(['--kind', 'account', '--limit-usd', '5']);
  const parent = await gateway.createKey(['--kind', 'account', '--limit-usd', '5']);
  const child = await gateway.createKey([
    '--kind',
    'allocated_child',
    '--parent',
    parent.id,
    '--limit-usd',
    '1',
  ]);
  const shared = await gateway.createKey(['--kind', 'shared_child', '--parent', account.id]);
  const disabled = await gateway.createKey(['--kind', 'account', '--limit-usd', '1']);
  const depleted = await gateway.createKey(['--kind', 'account', '--limit-usd', '0']);
  const expired = await gateway.createKey([
    '--kind',
    'account',
    '--limit-usd',
    '1',
    '--expires-at',
    String(Math.floor(Date.now() / 1000) + 3600),
  ]);
  for (const args of [
    ['disable', parent.id],
    ['disable', disabled.id],
    ['set', expired.id, '--expires-at', String(Math.floor(Date.now() / 1000) - 60)],
  ]) {
    const result = await gateway.cli(['keys', ...args]);
    expect(result.code, result.stderr).toBe(0);
  }
  Object.assign(keys, {
    account: account.key,
    child: child.key,
    shared: shared.key,
    disabled: disabled.key,
    depleted: depleted.key,
    expired: expired.key,
  });
  bff = await startTestBff({
    gatewayBaseUrl: `${gateway.baseUrl}/v1`,
    mode: 'embedded',
    profiles: keys,
  });
  // The gateway picks up command-line changes within a second; wait until it has.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const view = balanceViewSchema.parse(
      (await rawRequest(bff, { path: '/api/balance?profile=disabled' })).json(),
    );
    if (view.state === 'disabled') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 90_000);

afterAll(async () => {
  await bff?.close();
  await gateway?.stop();
});

const chat = (profile: string, stream: boolean, maxTokens = 2) => ({
  profile,
  request: {
    model: 'sim/echo-mini',
    messages: [{ role: 'user', content: 'Tell me a long story about a lighthouse.' }],
    max_tokens: maxTokens,
    stream,
  },
});

const generation = async (profile: string, cfRay: string) => {
  const response = await fetch(`${gateway.baseUrl}/v1/generation?id=${cfRay}`, {
    headers: { authorization: `Bearer ${keys[profile]}` },
  });
  return { status: response.status, body: (await response.json()) as unknown };
};

describe('the BFF against the real gateway', () => {
  it('health and catalog', async () => {
    const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(health).toMatchObject({
      reachable: true,
      mode: 'embedded',
      gateway_base_url: gateway.baseUrl,
    });
    const catalog = catalogSchema.parse((await rawRequest(bff, { path: '/api/catalog' })).json());
    expect(catalog.models.map((model) => model.id)).toContain('sim/echo-mini');
    expect(catalog.models.every((model) => model.author === 'sim')).toBe(true);
    expect(catalog.models.find((model) => model.id === 'sim/echo-mini')?.providers).toEqual([
      'simulated',
    ]);
  });

  it('the providers of a model, from the gateway’s endpoints route', async () => {
    const endpoints = modelEndpointsSchema.parse(
      (await rawRequest(bff, { path: '/api/catalog/endpoints?model=sim%2Fecho-mini' })).json(),
    );
    expect(endpoints.model).toBe('sim/echo-mini');
    expect(endpoints.endpoints).toMatchObject([
      { provider: 'simulated', kind: 'simulated', order: 1, status: 'healthy', retry_after: null },
    ]);
  });

  it('profiles with masked keys and identities', async () => {
    const { profiles } = profilesSchema.parse(
      (await rawRequest(bff, { path: '/api/profiles' })).json(),
    );
    const identities = Object.fromEntries(
      profiles.map((profile) => [profile.name, profile.identity]),
    );
    expect(identities).toMatchObject({
      account: 'account',
      child: 'allocated_child',
      shared: 'shared_child',
    });
    expect(JSON.stringify(profiles)).not.toContain(keys.account);
  });

  it('a plain chat with the cf-ray trace id, timing and cost', async () => {
    const result = chatResultSchema.parse(
      (await postJson(bff, '/api/chat', chat('account', false))).json(),
    );
    expect(result.meta.upstream_status).toBe(200);
    expect(result.meta.cf_ray).toMatch(cfRayPattern);
    expect(result.meta).toMatchObject({ provider: 'simulated', attempts: 1 });
    expect(result.body).toMatchObject({
      object: 'chat.completion',
      usage: { completion_tokens: 2 },
    });
  });

  it('a batch uploaded, run to its end and its output downloaded', async () => {
    const line = (id: string) =>
      JSON.stringify({
        custom_id: id,
        method: 'POST',
        url: '/v1/embeddings',
        body: { model: 'sim/embed-small', input: `text ${id}` },
      });
    const created = await postJson(bff, '/api/batches', {
      profile: 'account',
      endpoint: '/v1/embeddings',
      file_name: 'two.jsonl',
      content: `${line('a')}\n${line('b')}\n`,
    });
    expect(created.status, created.text).toBe(201);
    const { id } = batchDetailViewSchema.parse(created.json()).batch;
    // Read again until it has ended, as the page does (the test's own timeout bounds it).
    let view = batchDetailViewSchema.parse(created.json());
    while (view.batch.status !== 'completed') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const progress = await rawRequest(bff, { path: `/api/batches/${id}?profile=account` });
      view = batchDetailViewSchema.parse(progress.json());
    }
    expect(view.batch).toMatchObject({ total: 2, completed: 2, failed: 0, error_file_id: null });
    expect(view.batch.cost_usd).toBeGreaterThan(0);
    const output = await rawRequest(bff, {
      path: `/api/batches/${id}/results?profile=account&file=output`,
    });
    expect(output.status).toBe(200);
    const results = output.text
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { custom_id: string; response: { status_code: number } });
    expect(results.map((result) => [result.custom_id, result.response.status_code])).toEqual([
      ['a', 200],
      ['b', 200],
    ]);
  });

  it('the prompt counted by the gateway, as the chat it would send is charged', async () => {
    const body = chat('account', false);
    const counted = tokenCountSchema.parse((await postJson(bff, '/api/count-tokens', body)).json());
    const result = chatResultSchema.parse((await postJson(bff, '/api/chat', body)).json());
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(result.body).toMatchObject({ usage: { prompt_tokens: counted.input_tokens } });
  });

  it('a stream reaches the browser while the gateway is still generating', async () => {
    const stream = openStream(bff, chat('account', true, 40));
    const first = await stream.waitFor((text) => text.includes('chat.completion.chunk'));
    const cfRay = /"cf_ray":"([^"]+)"/.exec(first)?.[1];
    expect(cfRay).toMatch(cfRayPattern);
    // The gateway writes the generation record when the answer ends: none yet.
    expect((await generation('account', cfRay!)).status).toBe(404);
    const all = await stream.waitFor((text) => text.includes('event: done'));
    expect(all).toContain('data: [DONE]');
    const record = generationRecordSchema.parse((await generation('account', cfRay!)).body);
    expect(record).toMatchObject({ streamed: true, outcome: 'completed' });
  });

  it('Stop (the browser leaving) ends the gateway generation early', async () => {
    const stream = openStream(bff, chat('account', true, 400));
    const first = await stream.waitFor((text) => text.includes('chat.completion.chunk'));
    const cfRay = /"cf_ray":"([^"]+)"/.exec(first)![1]!;
    stream.request.destroy();
    await expect
      .poll(async () => (await generation('account', cfRay)).status, { timeout: 10_000 })
      .toBe(200);
    const record = generationRecordSchema.parse((await generation('account', cfRay)).body);
    expect(record.outcome).toBe('ended_early');
    expect(record.completion_tokens).toBeLessThan(400);
  });

  it.each([
    ['account', 'active'],
    ['disabled', 'disabled'],
    ['expired', 'expired'],
    ['depleted', 'depleted'],
    // Its parent is disabled: the gateway's GET /v1/key says so, no probe needed.
    ['child', 'blocked'],
  ])('balance state of %s is %s', async (profile, state) => {
    const view = balanceViewSchema.parse(
      (await rawRequest(bff, { path: `/api/balance?profile=${profile}` })).json(),
    );
    expect(view.state).toBe(state);
    expect(view.balance.key).not.toBe(keys[profile]);
  });

  it('a child of a disabled parent is blocked with the reason, and no probe is spent', async () => {
    const view = balanceViewSchema.parse(
      (await postJson(bff, '/api/balance/probe', { profile: 'child' })).json(),
    );
    expect(view).toMatchObject({
      state: 'blocked',
      blocked_by: { reason: 'parent_disabled', summary: 'its parent key is disabled' },
    });
    expect(view.guidance).toMatch(/keys enable/);
    expect(view.probe).toBeUndefined();
  });

  it('validates keys with a minimal call', async () => {
    const good = validateKeyResultSchema.parse(
      (
        await postJson(bff, '/api/validate-key', { profile: 'account', model: 'sim/echo-mini' })
      ).json(),
    );
    expect(good).toMatchObject({ valid: true, state: 'active' });
    expect(good.estimated_cost_usd).toBeGreaterThan(0);
    expect(good.cost_usd).toBeGreaterThan(0);
    const blocked = validateKeyResultSchema.parse(
      (
        await postJson(bff, '/api/validate-key', { profile: 'child', model: 'sim/echo-mini' })
      ).json(),
    );
    expect(blocked).toMatchObject({ valid: false, state: 'blocked' });
  });

  it('endpoint checks, free and paid', async () => {
    const report = checksReportSchema.parse(
      (
        await postJson(bff, '/api/checks', {
          profile: 'account',
          include_paid: true,
          model: 'sim/echo-mini',
        })
      ).json(),
    );
    const checks: Record<string, CheckResult> = Object.fromEntries(
      report.results.map((result) => [result.id, result]),
    );
    for (const id of [
      'models-anonymous',
      'models-with-key',
      'balance',
      'auth-query',
      'chat-completions',
      'chat-completions-stream',
      'generation',
      'model-endpoints',
      // With the catalog's embedding model, not the chat model the other checks call.
      'embeddings',
    ]) {
      expect(checks[id], id).toMatchObject({ outcome: 'available' });
      expect(checks[id]!.cf_ray, id).toMatch(cfRayPattern);
    }
    // Routes another part of the project adds later: whatever they answer, it is classified.
    for (const id of [
      'messages',
      'gemini-generate-content',
      'responses',
      'gemini-bearer-rejected',
    ]) {
      expect(checks[id]!.outcome, id).not.toBe('skipped');
      expect(checks[id]!.status, id).not.toBeNull();
    }
  });
});
