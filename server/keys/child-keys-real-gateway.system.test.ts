/**
 * Child keys and their rotation through the BFF against the real gateway process (its own port
 * and database, keys minted by its command line): the happy paths end to end, the secrets kept
 * in the keys store only, and the gateway's refusals passed on.
 */
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  chatResultSchema,
  childKeyEventsSchema,
  childKeysSchema,
  createdChildKeySchema,
  generationsPageSchema,
  profilesSchema,
  revokedChildKeySchema,
  rotationDoneLineSchema,
  rotationEstimateSchema,
  rotationLineSchema,
  updatedChildKeySchema,
} from '../../contract/workbench-api';
import type { GatewayProcess } from '../../testing/gateway-process';
import { KeysStore } from './keys-store';
import {
  postJson,
  rawRequest,
  startTestBff,
  type RawResponse,
  type TestBff,
} from '../test-support/harness';
import { startRealGatewayTeam, type RealGatewayTeam } from '../test-support/real-gateway-team';

let gateway: GatewayProcess;
let bff: TestBff;
let storePath: string;
const secrets: string[] = [];
const answers: RawResponse[] = [];
const track = async (call: Promise<RawResponse>) => {
  const response = await call;
  answers.push(response);
  return response;
};
const send = (method: string, route: string, body: unknown = {}) =>
  track(rawRequest(bff, { method, path: route, body: JSON.stringify(body) }));
const stored = () => JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
/** What the real gateway answers a key's balance (200 live, 401 revoked). */
const balanceStatus = async (key: string) =>
  (await fetch(`${gateway.baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } }))
    .status;
const chat = (profile: string) =>
  track(
    postJson(bff, '/api/chat', {
      profile,
      request: {
        model: 'sim/echo-mini',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 2,
      },
    }),
  );

let ciId: string;
let team: RealGatewayTeam;

beforeAll(async () => {
  team = await startRealGatewayTeam({ childLimitUsd: '1' });
  ({ gateway, bff, storePath } = team);
  ciId = team.child.id;
  secrets.push(team.account.key, team.child.key);
}, 90_000);

afterAll(async () => {
  await team?.stop();
});

describe('child keys against the real gateway', () => {
  it('lists the account’s children with the profile holding each', async () => {
    const list = childKeysSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles/team/child-keys' }))).json(),
    );
    expect(list.keys).toEqual([
      expect.objectContaining({ id: ciId, name: 'ci', kind: 'allocated_child', profile: 'ci' }),
    ]);
    expect(list.keys_store).toContain(storePath);
  });

  it('a child profile gets the gateway’s 403, message and all', async () => {
    const response = await track(rawRequest(bff, { path: '/api/profiles/ci/child-keys' }));
    expect(response.status).toBe(403);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error).toMatchObject({ upstream_status: 403, type: 'permission_denied' });
    expect(error.message).toContain('Only an account key manages child keys');
  });

  it('creates a shared child kept as a new profile, usable at once, its secret only in the owner-only file', async () => {
    const response = await track(
      postJson(bff, '/api/profiles/team/child-keys', { kind: 'shared_child', name: 'Playground' }),
    );
    expect(response.status, response.text).toBe(201);
    const created = createdChildKeySchema.parse(response.json());
    expect(created.profile).toMatchObject({ name: 'Playground', identity: 'shared_child' });
    expect(created.key).toMatchObject({ kind: 'shared_child', profile: 'Playground' });
    const secret = stored().Playground!;
    secrets.push(secret);
    expect(secret).toMatch(/^sk-/);
    expect(statSync(storePath).mode & 0o777).toBe(0o600);
    const result = chatResultSchema.parse((await chat('Playground')).json());
    expect(result.meta.upstream_status).toBe(200);
  });

  it('changes a child, and passes on a limit the account cannot fund with the figures', async () => {
    const changed = await send('PATCH', `/api/profiles/team/child-keys/${ciId}`, {
      expires_at: 4_102_444_800,
      grace_usd: 0.1,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(updatedChildKeySchema.parse(changed.json()).key).toMatchObject({
      expires_at: 4_102_444_800,
      grace_usd: 0.1,
      profile: 'ci',
    });
    const refused = await send('PATCH', `/api/profiles/team/child-keys/${ciId}`, {
      limit_usd: 500,
    });
    expect(refused.status).toBe(400);
    expect(apiErrorSchema.parse(refused.json()).error.message).toMatch(/limit_usd.*\$\d/);
  });

  it('rotates a child in four steps: the old key stops, the new one is kept and works', async () => {
    const estimate = rotationEstimateSchema.parse(
      (
        await track(
          rawRequest(bff, { path: `/api/profiles/team/child-keys/${ciId}/rotation/estimate` }),
        )
      ).json(),
    );
    expect(estimate.max_tokens).toBe(1);
    const oldSecret = stored().ci ?? secrets[1]!;
    const before = chatResultSchema.parse((await chat('ci')).json()).meta.cf_ray!;
    const response = await track(
      postJson(bff, `/api/profiles/team/child-keys/${ciId}/rotation`, {
        profile: 'ci',
        model: estimate.model,
      }),
    );
    expect(response.status).toBe(200);
    const lines = response.text
      .trim()
      .split('\n')
      .map((line) => rotationLineSchema.parse(JSON.parse(line)));
    expect(
      lines.filter((line) => 'step' in line).map((line) => 'step' in line && line.status),
    ).toEqual(['running', 'done', 'running', 'done', 'running', 'done', 'running', 'done']);
    const done = rotationDoneLineSchema.parse(lines.at(-1));
    expect(done).toMatchObject({ ok: true, old_key: { id: ciId, revoked: true } });
    const newSecret = stored().ci!;
    secrets.push(newSecret);
    expect(newSecret).not.toBe(oldSecret);
    expect(await balanceStatus(oldSecret)).toBe(401);
    expect(await balanceStatus(newSecret)).toBe(200);
    expect(chatResultSchema.parse((await chat('ci')).json()).meta.upstream_status).toBe(200);

    const list = childKeysSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles/team/child-keys' }))).json(),
    );
    const replacement = list.keys.find((key) => key.id === done.new_key!.id);
    expect(replacement).toMatchObject({
      name: 'ci',
      kind: 'allocated_child',
      profile: 'ci',
      expires_at: 4_102_444_800,
      grace_usd: 0.1,
    });
    expect(list.keys.map((key) => key.id)).not.toContain(ciId);
    const history = childKeyEventsSchema.parse(
      (
        await track(rawRequest(bff, { path: `/api/profiles/team/child-keys/${ciId}/events` }))
      ).json(),
    );
    expect(history.events.map((event) => event.action)).toContain('revoke');

    // The profile's Activity goes on: the request made with the old key is still listed, marked
    // with the key that made it, beside the verify request and the one since.
    const activity = generationsPageSchema.parse(
      (await track(rawRequest(bff, { path: '/api/generations?profile=ci' }))).json(),
    );
    const earlier = activity.data.find((request) => request.id === before);
    expect(earlier?.child).toMatchObject({ id: ciId, name: 'ci' });
    expect(activity.data.filter((request) => request.child === null)).toHaveLength(2);
    ciId = replacement!.id;
  });

  it('revokes a child and removes the profile holding it', async () => {
    const list = childKeysSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles/team/child-keys' }))).json(),
    );
    const playground = list.keys.find((key) => key.profile === 'Playground')!;
    const revoked = revokedChildKeySchema.parse(
      (await send('DELETE', `/api/profiles/team/child-keys/${playground.id}`)).json(),
    );
    expect(revoked.removed_profiles).toEqual(['Playground']);
    expect(Object.keys(stored())).toEqual(['ci']);
    const { profiles } = profilesSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles' }))).json(),
    );
    expect(profiles.map((profile) => profile.name)).toEqual(['team', 'ci']);
  });

  it('the rotated key comes back after a restart', async () => {
    const restarted = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      mode: 'embedded',
      profiles: { team: secrets[0]!, ci: secrets[1]! },
      keysStore: new KeysStore({ path: storePath, origin: 'embedded' }),
    });
    try {
      const response = await postJson(restarted, '/api/chat', {
        profile: 'ci',
        request: { model: 'sim/echo-mini', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(chatResultSchema.parse(response.json()).meta.upstream_status).toBe(200);
      answers.push(response);
      bff.logLines.push(...restarted.logLines);
    } finally {
      await restarted.close();
    }
  });

  it('no full key in any answer, header or log line', () => {
    expect(secrets).toHaveLength(4);
    for (const text of [
      ...answers.map((answer) => `${JSON.stringify(answer.headers)}\n${answer.text}`),
      ...bff.logLines,
    ]) {
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(3, 23));
      }
    }
  });
});
