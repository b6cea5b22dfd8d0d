/** Key states and their exact effect on inference, over real HTTP. */
import { balanceSchema, gatewayErrorBodySchema } from '../../contract/gateway';
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
const past = 1_000_000;

beforeAll(async () => {
  gateway = await startTestGateway({ settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway.stop();
});

async function infer(key: string, overrides: Record<string, unknown> = {}) {
  const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(overrides), {
    key,
  });
  expectCfRay(response);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function expectRefused(key: string, type: string) {
  const { status, body } = await infer(key);
  expect(status).toBe(402);
  const error = gatewayErrorBodySchema.parse(body);
  expect(error.type).toBe(type);
  expect(error.error).toMatch(/GET \/v1\/balance/);
  return error;
}

async function balance(key: string) {
  const response = await getWithKey(`${gateway.url}/v1/balance`, key);
  expect(response.status).toBe(200);
  return balanceSchema.parse(await response.json());
}

async function change(
  id: string,
  update: { disabled?: boolean; expiresAt?: number | null; limitUsd?: number },
) {
  if (update.disabled !== undefined) await gateway.gateway.admin.setDisabled(id, update.disabled);
  if (update.expiresAt !== undefined || update.limitUsd !== undefined) {
    await gateway.gateway.admin.set(id, { expiresAt: update.expiresAt, limitUsd: update.limitUsd });
  }
  await gateway.refreshKeys();
}

describe('key states', () => {
  it('serves an active key of every kind, children of a parent created a moment ago included', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const allocated = await gateway.createKey({ kind: 'allocated_child', parentId: account.id });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: account.id });
    for (const key of [allocated, shared, account]) {
      const { status, body } = await infer(key.key);
      expect(status, JSON.stringify(body)).toBe(200);
    }
  });

  it('refuses an expired key with 402', async () => {
    const key = await gateway.createKey({ kind: 'account', expiresAt: past });
    const error = await expectRefused(key.key, 'key_expired');
    expect(error.stage).toBe('authentication');
  });

  it('stops a key at the moment it expires, and serves it again when the expiry is lifted', async () => {
    const key = await gateway.createKey({ kind: 'account' });
    expect((await infer(key.key)).status).toBe(200);
    await change(key.id, { expiresAt: past });
    await expectRefused(key.key, 'key_expired');
    await change(key.id, { expiresAt: null });
    expect((await infer(key.key)).status).toBe(200);
  });

  it('refuses a disabled key with 402 and serves it again once enabled', async () => {
    const key = await gateway.createKey({ kind: 'account' });
    await change(key.id, { disabled: true });
    await expectRefused(key.key, 'key_disabled');
    await change(key.id, { disabled: false });
    expect((await infer(key.key)).status).toBe(200);
  });

  it('refuses an allocated child whose parent is disabled, though its own balance says it is fine', async () => {
    const parent = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'allocated_child', parentId: parent.id });
    await change(parent.id, { disabled: true });
    await expectRefused(child.key, 'parent_key_unavailable');
    const childBalance = await balance(child.key);
    expect(childBalance.expired).toBe(false);
    expect(childBalance.disabled).toBe(false);
  });

  it('refuses an allocated child whose parent is expired; its balance still answers 200, not expired', async () => {
    const parent = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'allocated_child', parentId: parent.id });
    expect((await infer(child.key)).status).toBe(200);
    await change(parent.id, { expiresAt: past });
    await expectRefused(child.key, 'parent_key_unavailable');
    const childBalance = await balance(child.key);
    expect(childBalance.expired).toBe(false);
    expect(childBalance.disabled).toBe(false);
    expect((await balance(parent.key)).expired).toBe(true);
  });

  it('refuses a shared child disabled on its own while its parent still works', async () => {
    const parent = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    await change(child.id, { disabled: true });
    await expectRefused(child.key, 'key_disabled');
    expect((await infer(parent.key)).status).toBe(200);
  });

  it('refuses a shared child whose parent is disabled', async () => {
    const parent = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    await change(parent.id, { disabled: true });
    await expectRefused(child.key, 'parent_key_unavailable');
  });

  it('refuses a shared child whose parent is depleted', async () => {
    const parent = await gateway.createKey({ kind: 'account', limitUsd: 0.0002, graceUsd: 0.01 });
    const child = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    const { status, body } = await infer(parent.key, {
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Please write 150 words' }],
    });
    expect(status).toBe(200);
    expect(toNanos((body.usage as { cost: number }).cost)).toBeGreaterThan(toNanos(0.0002));
    await gateway.gateway.settlement.settleNow();
    const error = await expectRefused(child.key, 'key_depleted');
    expect(error.error).toMatch(/parent/);
    expect((await balance(child.key)).remaining_usd).toBe(0);
  });

  it('refuses a depleted key (settled consumption at the limit) with 402, remaining_usd 0', async () => {
    const key = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body } = await infer(key.key, { max_tokens: 50 });
    const cost = toNanos((body.usage as { cost: number }).cost);
    await gateway.gateway.settlement.settleNow();
    // Lower the limit to exactly what was consumed.
    await change(key.id, { limitUsd: cost / 1e9 });
    const depleted = await balance(key.key);
    expect(toNanos(depleted.consumption_usd)).toBe(cost);
    expect(toNanos(depleted.limit_usd)).toBe(cost);
    expect(depleted.remaining_usd).toBe(0);
    expect(depleted.expired).toBe(false);
    expect(depleted.disabled).toBe(false);
    const error = await expectRefused(key.key, 'key_depleted');
    expect(error.stage).toBe('admission');
  });

  it('answers 401 for a revoked key', async () => {
    const key = await gateway.createKey({ kind: 'account' });
    await gateway.gateway.admin.revoke(key.id);
    await gateway.refreshKeys();
    expect((await infer(key.key)).status).toBe(401);
    expect((await getWithKey(`${gateway.url}/v1/balance`, key.key)).status).toBe(401);
  });
});
