/**
 * `GET /v1/activity?days=N`: per UTC day and model, the requests, tokens and cost (exact to the
 * nano), every day of the range present; an account's figures include its children's.
 */
import { activitySchema, gatewayErrorBodySchema, type Activity } from '../../contract/gateway';
import type { GenerationRow } from '../store/store';
import {
  chatBody,
  expectCfRay,
  getWithKey,
  postJson,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let sequence = 0;
const DAY = 86_400;

beforeAll(async () => {
  gateway = await startTestGateway({ settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway.stop();
});

async function insert(
  keyId: string,
  daysAgo: number,
  model: string,
  costNanos: number,
  fundingKeyId = keyId,
) {
  sequence += 1;
  const row: GenerationRow = {
    id: `${sequence.toString(16).padStart(16, '0')}-ACT`,
    keyId,
    fundingKeyId,
    model,
    provider: 'simulated',
    upstreamModel: model,
    form: 'chat_completions',
    streamed: false,
    promptTokens: 100,
    completionTokens: 7,
    costNanos,
    finishReason: 'stop',
    outcome: 'completed',
    settled: false,
    createdAt: Math.floor(Date.now() / 1000) - daysAgo * DAY,
    settledAt: null,
    latencyMs: 3,
    attempts: [],
    usageEstimated: false,
    chargeCapped: false,
  };
  await gateway.gateway.parts.store.insertGenerations([row]);
}

async function activity(key: string, query = ''): Promise<{ status: number; body: unknown }> {
  const response = await getWithKey(`${gateway.url}/v1/activity${query}`, key);
  expectCfRay(response);
  return { status: response.status, body: await response.json() };
}

const parse = (body: unknown): Activity => activitySchema.parse(body);
const today = () => new Date().toISOString().slice(0, 10);

describe('GET /v1/activity', () => {
  it('gives every day of the range, oldest first, zero days included (30 by default)', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const result = parse((await activity(account.key)).body);
    expect(result.days).toBe(30);
    expect(result.data).toHaveLength(30);
    expect(result.to).toBe(today());
    expect(result.data.at(-1)!.date).toBe(today());
    expect(result.data[0]!.date).toBe(result.from);
    for (const day of result.data) {
      expect(day).toMatchObject({
        requests: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: 0,
        models: [],
      });
    }
    expect(result.totals).toEqual({
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
    });
    const dates = result.data.map((day) => Date.parse(day.date));
    for (let index = 1; index < dates.length; index += 1)
      expect(dates[index]! - dates[index - 1]!).toBe(DAY * 1000);
  });

  it("sums per day and model, exactly, with the children's for an account and only its own for a child", async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const allocated = await gateway.createKey({ kind: 'allocated_child', parentId: account.id });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: account.id });
    // Costs that would drift as floating-point USD: 0.1 + 0.2 and friends.
    await insert(account.id, 0, 'sim/chat-standard', 100_000_001);
    await insert(account.id, 0, 'sim/chat-standard', 200_000_002);
    await insert(shared.id, 0, 'sim/echo-mini', 3, account.id);
    await insert(allocated.id, 2, 'sim/chat-standard', 700_000_000);
    await insert(account.id, 6, 'sim/reasoner-large', 1);
    await insert(account.id, 40, 'sim/chat-standard', 999); // outside a 7-day range

    const week = parse((await activity(account.key, '?days=7')).body);
    expect(week.data).toHaveLength(7);
    const todayFigures = week.data.at(-1)!;
    expect(todayFigures).toMatchObject({ requests: 3, prompt_tokens: 300, completion_tokens: 21 });
    expect(toNanos(todayFigures.cost_usd)).toBe(300_000_006);
    expect(todayFigures.models).toEqual([
      {
        model: 'sim/chat-standard',
        requests: 2,
        prompt_tokens: 200,
        completion_tokens: 14,
        cost_usd: 0.300000003,
      },
      {
        model: 'sim/echo-mini',
        requests: 1,
        prompt_tokens: 100,
        completion_tokens: 7,
        cost_usd: 0.000000003,
      },
    ]);
    expect(week.data.at(-3)!.models).toEqual([
      expect.objectContaining({ model: 'sim/chat-standard', requests: 1, cost_usd: 0.7 }),
    ]);
    expect(week.data[0]!.models).toEqual([
      expect.objectContaining({ model: 'sim/reasoner-large', cost_usd: 0.000000001 }),
    ]);
    expect(week.totals.requests).toBe(5);
    expect(toNanos(week.totals.cost_usd)).toBe(1_000_000_007);
    expect(week.data.filter((day) => day.requests === 0)).toHaveLength(4);

    const quarter = parse((await activity(account.key, '?days=90')).body);
    expect(quarter.totals.requests).toBe(6);

    // A child: its own figures only.
    const ownOnly = parse((await activity(allocated.key, '?days=7')).body);
    expect(ownOnly.totals.requests).toBe(1);
    expect(toNanos(ownOnly.totals.cost_usd)).toBe(700_000_000);
    const sharedOnly = parse((await activity(shared.key, '?days=7')).body);
    expect(sharedOnly.totals).toMatchObject({ requests: 1, cost_usd: 0.000000003 });
    // An account narrows to one child; a child cannot look at its parent.
    const narrowed = parse((await activity(account.key, `?days=7&key_id=${shared.id}`)).body);
    expect(narrowed.totals.requests).toBe(1);
    expect((await activity(shared.key, `?key_id=${account.id}`)).status).toBe(404);
  });

  it('counts real requests with the costs their answers reported', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    let cost = 0;
    for (const model of ['sim/chat-standard', 'sim/echo-mini', 'sim/chat-standard']) {
      const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody({ model }), {
        key: account.key,
      });
      cost += toNanos(((await response.json()) as { usage: { cost: number } }).usage.cost);
    }
    const result = parse((await activity(account.key, '?days=1')).body);
    expect(result.data).toHaveLength(1);
    expect(result.data[0]!.requests).toBe(3);
    expect(toNanos(result.data[0]!.cost_usd)).toBe(cost);
    expect(result.data[0]!.models.map((entry) => entry.model)).toEqual([
      'sim/chat-standard',
      'sim/echo-mini',
    ]);
  });

  it.each(['?days=91', '?days=0', '?days=week', '?days=1.5'])(
    'refuses %s with a 400 naming days',
    async (query) => {
      const account = await gateway.createKey({ kind: 'account' });
      const { status, body } = await activity(account.key, query);
      expect(status).toBe(400);
      expect(gatewayErrorBodySchema.parse(body).error).toContain("'days'");
    },
  );
});
