/**
 * Rotating an allocated child right after it spent, against the real gateway process with a
 * settlement interval far longer than the test: the charges are recorded but not settled yet, so
 * the replacement's limit must count them (the gateway's `pending_usd`), not only the settled
 * `remaining_usd`, or the rotation would hand the spent money back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managedKeyListSchema } from '../../contract/gateway';
import {
  childKeyEventsSchema,
  childKeysSchema,
  rotationDoneLineSchema,
  rotationLineSchema,
} from '../../contract/workbench-api';
import type { GatewayProcess } from '../../testing/gateway-process';
import { postJson, rawRequest, type TestBff } from '../test-support/harness';
import { startRealGatewayTeam, type RealGatewayTeam } from '../test-support/real-gateway-team';

let team: RealGatewayTeam;
let gateway: GatewayProcess;
let bff: TestBff;
let accountKey: string;
let childKey: string;
let childId: string;

/** The account's children as the gateway lists them (`GET /v1/keys`). */
const gatewayChildren = async () =>
  managedKeyListSchema.parse(
    await (
      await fetch(`${gateway.baseUrl}/v1/keys`, {
        headers: { authorization: `Bearer ${accountKey}` },
      })
    ).json(),
  ).data;

beforeAll(async () => {
  // Nothing settles during the test: every charge stays pending.
  team = await startRealGatewayTeam({
    childLimitUsd: '0.01',
    gatewayEnvironment: { GATEWAY_SETTLE_INTERVAL_MS: '600000' },
  });
  ({ gateway, bff } = team);
  accountKey = team.account.key;
  childKey = team.child.key;
  childId = team.child.id;
}, 90_000);

afterAll(async () => {
  await team?.stop();
});

describe('rotating an allocated child with charges not yet settled', () => {
  it('the gateway lists the unsettled charges as pending_usd (null for a shared child)', async () => {
    const spend = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${childKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim/chat-standard',
        messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }],
        max_tokens: 2500,
      }),
    });
    expect(spend.status, await spend.text()).toBe(200);
    const old = (await gatewayChildren()).find((key) => key.id === childId)!;
    expect(old.consumption_usd).toBe(0);
    expect(old.pending_usd).toBeGreaterThan(0);
    expect(old.remaining_usd).toBe(0.01);

    const shared = await postJson(bff, '/api/profiles/team/child-keys', {
      kind: 'shared_child',
      name: 'shared',
    });
    expect(shared.status, shared.text).toBe(201);
    const listed = (await gatewayChildren()).find((key) => key.kind === 'shared_child')!;
    expect(listed.pending_usd).toBeNull();
  });

  it('gives the replacement the limit minus settled and pending charges, and says so', async () => {
    const old = (await gatewayChildren()).find((key) => key.id === childId)!;
    const pending = old.pending_usd!;
    const response = await postJson(bff, `/api/profiles/team/child-keys/${childId}/rotation`, {
      profile: 'ci',
    });
    expect(response.status, response.text).toBe(200);
    const lines = response.text
      .trim()
      .split('\n')
      .map((line) => rotationLineSchema.parse(JSON.parse(line)));
    const done = rotationDoneLineSchema.parse(lines.at(-1));
    expect(done.ok, response.text).toBe(true);
    const creating = lines.find((line) => 'step' in line && line.step === 1)!;
    expect('detail' in creating && creating.detail).toContain(
      'what the old key has left, counting charges not yet settled',
    );

    const list = childKeysSchema.parse(
      (await rawRequest(bff, { path: '/api/profiles/team/child-keys' })).json(),
    );
    const replacement = list.keys.find((key) => key.id === done.new_key!.id)!;
    // Exact in nanos: 0.01 USD less what the old key spent.
    expect(Math.round(replacement.limit_usd! * 1e9)).toBe(10_000_000 - Math.round(pending * 1e9));
    expect(replacement.limit_usd).toBeLessThan(0.01);

    // The replacement's history links it to the key it replaced, by masked key and id only.
    const history = childKeyEventsSchema.parse(
      (
        await rawRequest(bff, { path: `/api/profiles/team/child-keys/${replacement.id}/events` })
      ).json(),
    );
    const created = history.events.find((event) => event.action === 'create')!;
    expect(created.note).toBe(`rotated from ${old.key} (${childId})`);
    expect(created.note).not.toContain(childKey);
  });
});
