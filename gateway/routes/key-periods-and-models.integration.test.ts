/**
 * Budgets that renew (`limit_reset`) and models a key may use (`allowed_models`), through the
 * gateway's routes: a daily key depleted today is admitted again after the next 00:00 UTC (the
 * clock moved with GATEWAY_CLOCK_OFFSET_MS, across a restart on the same file), and a key limited
 * to some models gets 403 for the others on every form, with nothing charged.
 */
import { startGateway, type RunningGateway } from '../index';
import { createLogger } from '../logger';
import {
  chatBody,
  getWithKey,
  postJson,
  tempFolder,
  testConfig,
  toNanos,
} from '../../testing/gateway-support';
import fs from 'node:fs';

const DAY_MS = 86_400_000;
const folder = tempFolder();
let gateway: RunningGateway | undefined;

/** A gateway on the test's file, its calendar moved by `clockOffsetMs`. */
async function start(clockOffsetMs = 0): Promise<RunningGateway> {
  await gateway?.close();
  gateway = await startGateway(testConfig({ clockOffsetMs, settleIntervalMs: 100 }, folder), {
    logger: createLogger('silent'),
  });
  return gateway;
}

afterAll(async () => {
  await gateway?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const chat = (key: string, overrides: Record<string, unknown> = {}) =>
  postJson(`${gateway!.url}/v1/chat/completions`, chatBody(overrides), { key });

async function balance(key: string) {
  const response = await getWithKey(`${gateway!.url}/v1/balance`, key);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('a daily budget', () => {
  it('is refused once spent today, and admitted again after the next 00:00 UTC', async () => {
    await start();
    const admin = gateway!.gateway.admin;
    // One request's cost, to size a limit that affords exactly two.
    const probe = await admin.create({ kind: 'account', limitUsd: 1 });
    const probed = await chat(probe.key);
    expect(probed.status).toBe(200);
    const cost = toNanos(((await probed.json()) as { usage: { cost: number } }).usage.cost);
    expect(cost).toBeGreaterThan(0);

    const daily = await admin.create({
      kind: 'account',
      limitUsd: (2 * cost) / 1e9,
      limitReset: 'daily',
    });
    const today = Math.floor(Date.now() / DAY_MS) * 86_400;
    expect(await balance(daily.key)).toMatchObject({
      limit_reset: 'daily',
      period_started_at: today,
      resets_at: today + 86_400,
    });
    expect((await chat(daily.key)).status).toBe(200);
    expect((await chat(daily.key)).status).toBe(200);
    const refused = await chat(daily.key);
    expect(refused.status).toBe(402);
    expect(await refused.text()).toMatch(/more than the key has left|used up/);

    // The next day, 5 s after 00:00 UTC, on the same file.
    await start(DAY_MS - (Date.now() % DAY_MS) + 5_000);
    expect((await chat(daily.key)).status).toBe(200);
    const renewed = await balance(daily.key);
    expect(renewed).toMatchObject({
      limit_reset: 'daily',
      period_started_at: today + 86_400,
      resets_at: today + 2 * 86_400,
    });
    // This period has spent one request, settled or not yet: never the last period's two.
    await vi.waitFor(
      async () => expect(toNanos((await balance(daily.key)).consumption_usd as number)).toBe(cost),
      { timeout: 10_000 },
    );
    const renewedAdmin = gateway!.gateway.admin;
    expect(await renewedAdmin.periods(daily.id, 10)).toEqual([
      {
        object: 'key_period',
        started_at: today,
        ended_at: today + 86_400,
        limit_usd: (2 * cost) / 1e9,
        consumption_usd: (2 * cost) / 1e9,
      },
    ]);
    const events = await renewedAdmin.events(daily.id, { limit: 10 });
    expect(events.map((event) => event.action)).toContain('period_reset');
  });
});

describe('models a key may use', () => {
  it('refuses the others on every form with 403, before anything is charged', async () => {
    await start();
    const admin = gateway!.gateway.admin;
    const key = await admin.create({ kind: 'account', allowedModels: ['sim/chat-*'] });
    const url = gateway!.url;
    const other = 'sim/reasoner-large';
    const refusals = [
      await chat(key.key, { model: other }),
      await postJson(
        `${url}/v1/messages`,
        { model: other, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-api-key': key.key, 'anthropic-version': '2023-06-01' } },
      ),
      await postJson(`${url}/v1/responses`, { model: other, input: 'hi' }, { key: key.key }),
      await postJson(
        `${url}/v1beta/models/${other}:generateContent`,
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        { headers: { 'x-goog-api-key': key.key } },
      ),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(403);
      const text = await refusal.text();
      expect(text).toContain(`may not use ${other}`);
      expect(text).toContain('sim/chat-*');
    }
    // Nothing was recorded or charged for them; an allowed model answers.
    expect((await chat(key.key)).status).toBe(200);
    const generations = await gateway!.gateway.parts.store.listGenerations({
      keyId: key.id,
      limit: 10,
    });
    expect(generations.map((listed) => listed.row.model)).toEqual(['sim/chat-standard']);
  });

  it('lists only the models the key may use, and the whole catalog without a key', async () => {
    const admin = gateway!.gateway.admin;
    const key = await admin.create({ kind: 'account', allowedModels: ['sim/echo-*', '*:free'] });
    const listed = async (headers: Record<string, string>) => {
      const response = await fetch(`${gateway!.url}/v1/models`, { headers });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: Array<{ id: string }> }).data.map(
        (model) => model.id,
      );
    };
    const all = await listed({});
    const mine = await listed({ authorization: `Bearer ${key.key}` });
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(all.length);
    expect(mine.every((id) => id.startsWith('sim/echo-') || id.endsWith(':free'))).toBe(true);
    // Each pattern lets in a model of its own.
    expect(mine).toContain('sim/echo-mini');
    expect(mine).toContain('sim/chat-standard:free');
    expect(mine).toEqual(all.filter((id) => id.startsWith('sim/echo-') || id.endsWith(':free')));
    // Anthropic's shape too, as Claude Code's picker asks for it.
    const anthropic = await fetch(`${gateway!.url}/v1/models?limit=1000`, {
      headers: { 'x-api-key': key.key, 'anthropic-version': '2023-06-01' },
    });
    const ids = ((await anthropic.json()) as { data: Array<{ id: string }> }).data.map(
      (model) => model.id,
    );
    expect([...ids].sort()).toEqual([...mine].sort());
    expect(await balance(key.key)).toMatchObject({
      allowed_models: ['sim/echo-*', '*:free'],
      parent_allowed_models: null,
    });
    // A request with a key is never answered from a shared cache.
    const keyed = await fetch(`${gateway!.url}/v1/models`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(keyed.headers.get('cache-control')).toBe('private, no-store');
  });

  it('lets a child narrow its parent’s list, never widen it', async () => {
    const admin = gateway!.gateway.admin;
    const parent = await admin.create({ kind: 'account', allowedModels: ['sim/chat-*'] });
    const createChild = (body: Record<string, unknown>) =>
      postJson(`${gateway!.url}/v1/keys`, { kind: 'shared_child', ...body }, { key: parent.key });
    const wider = await createChild({ allowed_models: ['sim/reasoner-large'] });
    expect(wider.status).toBe(400);
    expect(await wider.text()).toMatch(
      /only narrow what the parent key allows.*sim\/reasoner-large/,
    );

    const narrower = await createChild({ allowed_models: ['sim/chat-standard'] });
    expect(narrower.status).toBe(201);
    const issued = (await narrower.json()) as { key: string; data: { id: string } };
    expect((await chat(issued.key)).status).toBe(200);

    // A child without a list of its own is held to its parent's.
    const unlisted = (await (await createChild({})).json()) as { key: string };
    expect((await chat(unlisted.key, { model: 'sim/reasoner-large' })).status).toBe(403);
    expect((await chat(unlisted.key)).status).toBe(200);

    // An allocated child may renew too (its account refills it each period: allocated-periods).
    const renewing = await postJson(
      `${gateway!.url}/v1/keys`,
      { kind: 'allocated_child', limit_usd: 0.5, limit_reset: 'daily' },
      { key: parent.key },
    );
    expect(renewing.status).toBe(201);
    expect(((await renewing.json()) as { data: Record<string, unknown> }).data).toMatchObject({
      limit_reset: 'daily',
      remaining_usd: 0.5,
    });

    const widen = await fetch(`${gateway!.url}/v1/keys/${issued.data.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${parent.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ allowed_models: ['*'] }),
    });
    expect(widen.status).toBe(400);
  });
});
