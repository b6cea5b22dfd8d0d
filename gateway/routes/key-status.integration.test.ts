/**
 * `GET /v1/key` agrees with what inference does, for every state, and names a parent that
 * blocks a child, without any paid request.
 */
import { keyStatusSchema } from '../../contract/gateway';
import {
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.stop());

const status = async (key: string) => {
  const response = await getWithKey(`${gateway.url}/v1/key`, key);
  expect(response.status).toBe(200);
  const body = keyStatusSchema.parse(await response.json());
  expect(JSON.stringify(body)).not.toContain(key);
  return body;
};
const chatStatus = async (key: string) =>
  (await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key })).status;

describe('GET /v1/key', () => {
  it('says blocked, with the reason, for both kinds of child of a disabled parent', async () => {
    const parent = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const allocated = await gateway.createKey({
      kind: 'allocated_child',
      parentId: parent.id,
      limitUsd: 1,
    });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    expect((await status(allocated.key)).state).toBe('active');
    await gateway.gateway.admin.setDisabled(parent.id, true);
    await gateway.refreshKeys();
    for (const child of [allocated, shared]) {
      const body = await status(child.key);
      expect(body).toMatchObject({
        state: 'blocked',
        can_spend: false,
        blocked_by: { reason: 'parent_disabled' },
      });
      // It agrees with inference.
      expect(await chatStatus(child.key)).toBe(402);
    }
    expect((await status(parent.key)).state).toBe('disabled');
  });

  it('says expired and depleted where inference refuses, and active where it serves', async () => {
    const expired = await gateway.createKey({ kind: 'account', limitUsd: 1, expiresAt: 1_000 });
    expect((await status(expired.key)).state).toBe('expired');
    expect(await chatStatus(expired.key)).toBe(402);
    const empty = await gateway.createKey({ kind: 'account', limitUsd: 0 });
    expect((await status(empty.key)).state).toBe('depleted');
    expect(await chatStatus(empty.key)).toBe(402);
    const fine = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    expect(await status(fine.key)).toMatchObject({
      state: 'active',
      can_spend: true,
      blocked_by: null,
    });
    expect(await chatStatus(fine.key)).toBe(200);
  });

  it('answers 401 without a key', async () => {
    expect((await fetch(`${gateway.url}/v1/key`)).status).toBe(401);
  });
});
