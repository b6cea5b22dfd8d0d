import { balanceSchema, gatewayErrorBodySchema, type Balance } from '../../contract/gateway';
import { maskKey } from '../shared/key-masking';
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

beforeAll(async () => {
  // Settlement only when the test asks for it, so figures are known at every step.
  gateway = await startTestGateway({ settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway.stop();
});

async function balanceOf(key: string): Promise<Balance> {
  const response = await getWithKey(`${gateway.url}/v1/balance`, key);
  expect(response.status).toBe(200);
  expectCfRay(response);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return balanceSchema.parse(await response.json());
}

async function spend(key: string, overrides: Record<string, unknown> = {}): Promise<number> {
  const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(overrides), {
    key,
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { usage: { cost: number } };
  return toNanos(body.usage.cost);
}

describe('GET /v1/balance', () => {
  it('returns every field of the balance resource for an account key', async () => {
    const { key } = await gateway.createKey({
      kind: 'account',
      limitUsd: 12.5,
      graceUsd: 0.25,
      expiresAt: 4_102_444_800,
    });
    const balance = await balanceOf(key);
    expect(balance).toMatchObject({
      object: 'balance',
      identity: 'account',
      limit_usd: 12.5,
      remaining_usd: 12.5,
      consumption_usd: 0,
      grace_usd: 0.25,
      recharge_usd: expect.any(Number),
      credit_usd: expect.any(Number),
      allocated_usd: expect.any(Number),
      expires_at: 4_102_444_800,
      expired: false,
      disabled: false,
      settlement: 'asynchronous',
    });
    expect(balance.note).toMatch(/asynchronous/);
    expect(balance.note).toMatch(/grace_usd/);
  });

  it('shows the key masked, never in full', async () => {
    const { key } = await gateway.createKey({ kind: 'account' });
    const response = await getWithKey(`${gateway.url}/v1/balance`, key);
    const text = await response.text();
    const balance = balanceSchema.parse(JSON.parse(text));
    expect(balance.key.startsWith('sk-')).toBe(true);
    expect(balance.key).toContain('…');
    expect(balance.key).toBe(maskKey(key));
    expect(key.endsWith(balance.key.slice(-4))).toBe(true);
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(8, -5));
  });

  it('keeps remaining_usd = max(limit_usd - consumption_usd, 0), consumption lagging until settlement', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 0.001, graceUsd: 0.01 });
    const cost = await spend(key, { max_tokens: 100 });
    expect(cost).toBeGreaterThan(0);
    const before = await balanceOf(key);
    expect(before.consumption_usd).toBe(0);
    expect(before.remaining_usd).toBe(0.001);
    // What was charged and not settled yet is told, so a client can show what is really left.
    expect(toNanos(before.pending_usd ?? -1)).toBe(cost);

    await gateway.gateway.settlement.settleNow();
    const after = await balanceOf(key);
    expect(after.pending_usd).toBe(0);
    expect(toNanos(after.consumption_usd)).toBe(cost);
    expect(toNanos(after.remaining_usd)).toBe(Math.max(toNanos(0.001) - cost, 0));

    // Spend past the limit (the grace admits it): remaining never goes below 0, nor counts grace.
    let total = cost;
    while (total < toNanos(0.001)) total += await spend(key, { max_tokens: 100 });
    await gateway.gateway.settlement.settleNow();
    const depleted = await balanceOf(key);
    expect(toNanos(depleted.consumption_usd)).toBe(total);
    expect(depleted.consumption_usd).toBeGreaterThan(depleted.limit_usd);
    expect(depleted.remaining_usd).toBe(0);
    expect(depleted.grace_usd).toBe(0.01);
  });

  it('answers 200 for an expired key and for a disabled key, with the flags set', async () => {
    const expired = await gateway.createKey({ kind: 'account', expiresAt: 1_000_000 });
    const expiredBalance = await balanceOf(expired.key);
    expect(expiredBalance.expired).toBe(true);
    expect(expiredBalance.disabled).toBe(false);
    expect(expiredBalance.expires_at).toBe(1_000_000);

    const disabled = await gateway.createKey({
      kind: 'allocated_child',
      parentId: (await gateway.createKey({ kind: 'account' })).id,
    });
    await gateway.gateway.admin.setDisabled(disabled.id, true);
    await gateway.refreshKeys();
    const disabledBalance = await balanceOf(disabled.key);
    expect(disabledBalance.disabled).toBe(true);
    expect(disabledBalance.expired).toBe(false);
    expect(disabledBalance.identity).toBe('allocated_child');
  });

  it.each([
    ['no key', undefined, /No API key/],
    ['an unknown key', 'sk-this-key-was-never-issued', /not known/],
    ['a key without the sk- prefix', 'pk-whatever', /does not start with 'sk-'/],
  ])('answers 401 for %s', async (_case, key, message) => {
    const response = await getWithKey(`${gateway.url}/v1/balance`, key);
    expect(response.status).toBe(401);
    const ray = expectCfRay(response);
    const body = gatewayErrorBodySchema.parse(await response.json());
    expect(body.error).toMatch(message);
    expect(body.request_id).toBe(ray);
  });

  it("reports a shared child's parent figures without exposing the parent key", async () => {
    const parent = await gateway.createKey({ kind: 'account', limitUsd: 3, graceUsd: 0.5 });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    const allocated = await gateway.createKey({
      kind: 'allocated_child',
      parentId: parent.id,
      limitUsd: 1,
    });
    // The shared child spends the parent's money; the allocated child spends its own.
    const spent = (await spend(shared.key)) + (await spend(parent.key));
    const allocatedSpent = await spend(allocated.key);
    await gateway.gateway.settlement.settleNow();

    const parentBalance = await balanceOf(parent.key);
    const response = await getWithKey(`${gateway.url}/v1/balance`, shared.key);
    const text = await response.text();
    const childBalance = balanceSchema.parse(JSON.parse(text));
    expect(childBalance.identity).toBe('shared_child');
    expect(toNanos(parentBalance.consumption_usd)).toBe(spent);
    for (const field of [
      'limit_usd',
      'consumption_usd',
      'remaining_usd',
      'grace_usd',
      'allocated_usd',
      'recharge_usd',
      'credit_usd',
    ] as const) {
      expect(childBalance[field], field).toBe(parentBalance[field]);
    }
    expect(childBalance.key).toBe(maskKey(shared.key));
    expect(text).not.toContain(parent.key);
    expect(text).not.toContain(parentBalance.key);
    expect(text).not.toContain(parent.id);
    expect(childBalance.note).toMatch(/shared child/);

    const allocatedBalance = await balanceOf(allocated.key);
    expect(allocatedBalance.limit_usd).toBe(1);
    expect(toNanos(allocatedBalance.consumption_usd)).toBe(allocatedSpent);
  });
});
