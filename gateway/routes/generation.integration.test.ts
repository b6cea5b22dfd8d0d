/** Generation records: written at once, visible to the key and its parent, settled later. */
import {
  balanceSchema,
  generationRecordSchema,
  type GenerationRecord,
} from '../../contract/gateway';
import {
  chatBody,
  eventually,
  expectCfRay,
  getWithKey,
  postJson,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

async function infer(gateway: TestGateway, key: string, overrides: Record<string, unknown> = {}) {
  const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(overrides), {
    key,
  });
  expect(response.status).toBe(200);
  const ray = expectCfRay(response);
  const text = await response.text();
  return { ray, text };
}

async function record(
  gateway: TestGateway,
  key: string,
  id: string,
): Promise<{ status: number; record?: GenerationRecord }> {
  const response = await getWithKey(
    `${gateway.url}/v1/generation?id=${encodeURIComponent(id)}`,
    key,
  );
  expectCfRay(response);
  const body: unknown = await response.json();
  return response.status === 200
    ? { status: 200, record: generationRecordSchema.parse(body) }
    : { status: response.status };
}

async function consumption(gateway: TestGateway, key: string): Promise<number> {
  const response = await getWithKey(`${gateway.url}/v1/balance`, key);
  return toNanos(balanceSchema.parse(await response.json()).consumption_usd);
}

describe('generation records, settled by hand', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ settleIntervalMs: 600_000 });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('are written before the answer ends, visible to the key and its parent, 404 to any other key', async () => {
    const parent = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'allocated_child', parentId: parent.id });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    const sibling = await gateway.createKey({ kind: 'allocated_child', parentId: parent.id });
    const stranger = await gateway.createKey({ kind: 'account' });

    const { ray, text } = await infer(gateway, child.key, { max_tokens: 7 });
    const usage = (
      JSON.parse(text) as {
        usage: { prompt_tokens: number; completion_tokens: number; cost: number };
      }
    ).usage;
    const mine = await record(gateway, child.key, ray);
    expect(mine.status).toBe(200);
    expect(mine.record).toMatchObject({
      object: 'generation',
      id: ray,
      model: 'sim/chat-standard',
      provider: 'simulated',
      form: 'chat_completions',
      streamed: false,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: 7,
      cost_usd: usage.cost,
      finish_reason: 'length',
      outcome: 'completed',
      settlement: 'pending',
      settled_at: null,
    });
    expect((await record(gateway, parent.key, ray)).status).toBe(200);
    expect((await record(gateway, sibling.key, ray)).status).toBe(404);
    expect((await record(gateway, stranger.key, ray)).status).toBe(404);
    expect((await record(gateway, shared.key, ray)).status).toBe(404);
    expect((await record(gateway, parent.key, '0123456789abcdef-LCL')).status).toBe(404);

    // A shared child's record is visible to it and to its parent; its funding is the parent's.
    const fromShared = await infer(gateway, shared.key, { stream: true });
    expect((await record(gateway, shared.key, fromShared.ray)).record).toMatchObject({
      streamed: true,
      outcome: 'completed',
    });
    expect((await record(gateway, parent.key, fromShared.ray)).status).toBe(200);
    expect((await record(gateway, child.key, fromShared.ray)).status).toBe(404);
  });

  it('leave consumption_usd unchanged until settlement, then it equals the sum of their costs exactly', async () => {
    const key = await gateway.createKey({ kind: 'account', limitUsd: 5 });
    const rays: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const model = ['sim/chat-standard', 'sim/echo-mini', 'sim/reasoner-large', 'sim/vision-pro'][
        index % 4
      ];
      rays.push(
        (await infer(gateway, key.key, { model, max_tokens: 10 + index, stream: index % 2 === 0 }))
          .ray,
      );
    }
    const records = await Promise.all(
      rays.map(async (ray) => (await record(gateway, key.key, ray)).record!),
    );
    const total = records.reduce((sum, one) => sum + toNanos(one.cost_usd), 0);
    expect(total).toBeGreaterThan(0);
    expect(records.every((one) => one.settlement === 'pending')).toBe(true);
    expect(await consumption(gateway, key.key)).toBe(0);

    await gateway.gateway.settlement.settleNow();
    expect(await consumption(gateway, key.key)).toBe(total);
    for (const ray of rays) {
      const settled = (await record(gateway, key.key, ray)).record!;
      expect(settled.settlement).toBe('settled');
      expect(settled.settled_at).toEqual(expect.any(Number));
    }
  });
});

describe('generation records, settled by the timer', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ settleIntervalMs: 150 });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('go from pending to settled after the settle interval, and consumption follows', async () => {
    const key = await gateway.createKey({ kind: 'account' });
    const first = await infer(gateway, key.key);
    const second = await infer(gateway, key.key, { model: 'sim/reasoner-large' });
    const costs = await Promise.all(
      [first.ray, second.ray].map(async (ray) =>
        toNanos((await record(gateway, key.key, ray)).record!.cost_usd),
      ),
    );
    const settled = await eventually(async () => {
      const one = (await record(gateway, key.key, second.ray)).record!;
      return one.settlement === 'settled' ? one : undefined;
    });
    expect(settled.settled_at).toBeGreaterThanOrEqual(settled.created_at);
    expect((await record(gateway, key.key, first.ray)).record!.settlement).toBe('settled');
    expect(await consumption(gateway, key.key)).toBe(costs[0]! + costs[1]!);
  });
});
