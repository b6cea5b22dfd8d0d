/**
 * An account profile's child keys through the BFF, against a fake gateway that manages keys:
 * listing with the holding profile, creating (the secret kept in the keys store, owner-only,
 * never sent back), changing, revoking (the holding profile goes with it), the history, the
 * gateway's refusals passed on, field-naming validation, and sign-in.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  childKeyEventsSchema,
  childKeysSchema,
  createdChildKeySchema,
  profilesSchema,
  revokedChildKeySchema,
  updatedChildKeySchema,
} from '../../contract/workbench-api';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { createAccessControl } from '../sign-in/access';
import { defaultTimeouts } from '../app';
import { createCatalogService } from '../catalog/catalog';
import { createChildKeysRouter, profileNameFor } from './child-keys';
import { createErrorHandler } from '../core/errors';
import { createGatewayClient } from '../core/gateway-client';
import { ProfileStore } from './profiles';
import { KeysStore } from './keys-store';
import {
  startFakeKeyGateway,
  type FakeKey,
  type FakeKeyGateway,
} from '../test-support/fake-key-gateway';
import {
  postJson,
  rawRequest,
  startTestBff,
  type RawResponse,
  type TestBff,
} from '../test-support/harness';

const send = (bff: TestBff, method: string, path: string, body: unknown = {}) =>
  rawRequest(bff, { method, path, body: JSON.stringify(body) });

const errorOf = (response: RawResponse) => apiErrorSchema.parse(response.json()).error;

/** Every answer and log line must be free of every full key the test knows. */
function expectNoKey(texts: string[], secrets: string[]): void {
  for (const text of texts) {
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      // Nor a long piece of it (a mask shows 4 + 4 characters).
      expect(text).not.toContain(secret.slice(3, 23));
    }
  }
}

const answersText = (responses: RawResponse[]) =>
  responses.map((response) => `${JSON.stringify(response.headers)}\n${response.text}`);

describe('child keys of an account profile', () => {
  let gateway: FakeKeyGateway;
  let bff: TestBff;
  let folder: string;
  let storePath: string;
  let account: FakeKey;
  let child: FakeKey;
  let spent: FakeKey;
  const responses: RawResponse[] = [];
  const track = async (call: Promise<RawResponse>) => {
    const response = await call;
    responses.push(response);
    return response;
  };
  const allSecrets = () => [...gateway.keys.values()].map((key) => key.secret);

  beforeAll(async () => {
    gateway = await startFakeKeyGateway();
    account = gateway.addKey({ kind: 'account', name: 'team', limitUsd: 100 });
    child = gateway.addKey({ kind: 'allocated_child', parentId: account.id, name: 'ci' });
    spent = gateway.addKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'spent',
      consumptionUsd: 3,
    });
    folder = mkdtempSync(path.join(tmpdir(), 'child-keys-'));
    storePath = path.join(folder, 'keys.json');
    writeFileSync(storePath, JSON.stringify({ team: account.secret, 'ci key': child.secret }), {
      mode: 0o644,
    });
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret, 'ci key': child.secret },
      keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
    rmSync(folder, { recursive: true, force: true });
  });
  beforeEach(() => {
    gateway.requests.length = 0;
  });

  it('lists the children, masked, each with the profile holding its secret', async () => {
    const response = await track(rawRequest(bff, { path: '/api/profiles/team/child-keys' }));
    expect(response.status).toBe(200);
    const list = childKeysSchema.parse(response.json());
    expect(list.keys_store).toBe(`${storePath} (WORKBENCH_KEYS_FILE)`);
    const byName = Object.fromEntries(list.keys.map((key) => [key.name, key]));
    expect(byName.ci).toMatchObject({ id: child.id, profile: 'ci key', state: 'active' });
    expect(byName.ci!.key).toMatch(/^sk-.{4}….{4}$/);
    expect(byName.spent).toMatchObject({ id: spent.id, profile: null });
    // The list was asked with the account key.
    const list_call = gateway.requests.find((request) => request.url === '/v1/keys');
    expect(list_call?.headers.authorization).toBe(`Bearer ${account.secret}`);
  });

  it('creates a child: the secret goes to the keys store (owner-only), never to the browser, and the profile works at once', async () => {
    const response = await track(
      postJson(bff, '/api/profiles/team/child-keys', {
        kind: 'allocated_child',
        name: 'Nightly build / ci',
        limit_usd: 2.5,
        expires_at: 4_102_444_800,
      }),
    );
    expect(response.status, response.text).toBe(201);
    const created = createdChildKeySchema.parse(response.json());
    expect(created.profile.name).toBe('Nightly build - ci');
    expect(created.stored_in).toContain(storePath);
    expect(created.key).toMatchObject({
      kind: 'allocated_child',
      name: 'Nightly build / ci',
      limit_usd: 2.5,
      expires_at: 4_102_444_800,
      profile: 'Nightly build - ci',
    });
    const issued = gateway.keys.get(created.key.id)!;
    expect(created.profile.masked_key).toBe(created.key.key);
    expect(created.profile.identity).toBe('allocated_child');

    // Kept in the keys file, next to what was there, readable by its owner only.
    const file = JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
    expect(file).toEqual({
      team: account.secret,
      'ci key': child.secret,
      'Nightly build - ci': issued.secret,
    });
    expect(statSync(storePath).mode & 0o777).toBe(0o600);

    // Usable in the playground at once: the chat goes out with the new key.
    const profiles = profilesSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles' }))).json(),
    );
    expect(profiles.profiles.map((profile) => profile.name)).toContain('Nightly build - ci');
    gateway.requests.length = 0;
    const chat = await track(
      postJson(bff, '/api/chat', {
        profile: 'Nightly build - ci',
        request: { model: 'sim/echo', messages: [{ role: 'user', content: 'hi' }] },
      }),
    );
    expect(chat.status).toBe(200);
    expect(gateway.requests.at(-1)?.headers.authorization).toBe(`Bearer ${issued.secret}`);
  });

  it('makes a derived profile name unique, and refuses a taken explicit one naming the field', async () => {
    const first = createdChildKeySchema.parse(
      (
        await track(
          postJson(bff, '/api/profiles/team/child-keys', { kind: 'shared_child', name: 'team' }),
        )
      ).json(),
    );
    expect(first.profile.name).toBe('team-2');
    const taken = await track(
      postJson(bff, '/api/profiles/team/child-keys', {
        kind: 'shared_child',
        name: 'x',
        profile_name: 'team',
      }),
    );
    expect(taken.status).toBe(409);
    expect(errorOf(taken).field).toBe('profile_name');
    expect(profileNameFor('  ', () => false)).toBe('child-key');
    expect(profileNameFor('ünïcode', () => false)).toBe('unicode');
    expect(profileNameFor('a'.repeat(80), (name) => name === 'a'.repeat(64))).toBe(
      `${'a'.repeat(62)}-2`,
    );
  });

  it.each([
    [{ kind: 'root', name: 'x' }, 'kind'],
    [{ kind: 'allocated_child' }, 'name'],
    [{ kind: 'allocated_child', name: '' }, 'name'],
    [{ kind: 'allocated_child', name: 'x', limit_usd: -1 }, 'limit_usd'],
    [{ kind: 'allocated_child', name: 'x', limit_usd: '5' }, 'limit_usd'],
    [{ kind: 'allocated_child', name: 'x', expires_at: 1.5 }, 'expires_at'],
    [{ kind: 'shared_child', name: 'x', limit_usd: 1 }, 'limit_usd'],
    [{ kind: 'shared_child', name: 'x', grace_usd: 1 }, 'grace_usd'],
    [{ kind: 'shared_child', name: 'x', profile_name: '../etc' }, 'profile_name'],
    [{ kind: 'shared_child', name: 'x', extra: true }, 'body'],
  ])('a bad create body %j is a 400 naming %s, and nothing is created', async (body, field) => {
    const response = await track(postJson(bff, '/api/profiles/team/child-keys', body));
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ stage: 'validation', field });
    expect(errorOf(response).message).toContain(field);
    expect(gateway.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it.each([
    ['PATCH', `/api/profiles/team/child-keys/KEY`, {}, 'body'],
    ['PATCH', `/api/profiles/team/child-keys/KEY`, { limit_usd: 'lots' }, 'limit_usd'],
    ['PATCH', `/api/profiles/team/child-keys/KEY`, { disabled: 'yes' }, 'disabled'],
    ['PATCH', `/api/profiles/team/child-keys/bad%20id`, { name: 'x' }, 'id'],
    ['DELETE', `/api/profiles/team/child-keys/KEY`, { really: true }, 'body'],
    ['GET', `/api/profiles/team/child-keys/KEY/events?limit=0`, undefined, 'limit'],
    ['GET', `/api/profiles/team/child-keys?include_revoked=yes`, undefined, 'include_revoked'],
  ])('%s %s with a bad input is a 400 naming %s', async (method, route, body, field) => {
    const response = await track(
      rawRequest(bff, {
        method,
        path: route.replace('KEY', child.id),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe(field);
    expect(gateway.requests).toHaveLength(0);
  });

  it('changes a key, and passes on the gateway’s refusal with its figures', async () => {
    const changed = await track(
      send(bff, 'PATCH', `/api/profiles/team/child-keys/${child.id}`, {
        disabled: true,
        name: 'ci (paused)',
      }),
    );
    expect(changed.status).toBe(200);
    expect(updatedChildKeySchema.parse(changed.json()).key).toMatchObject({
      id: child.id,
      name: 'ci (paused)',
      disabled: true,
      state: 'disabled',
      profile: 'ci key',
    });
    expect(
      JSON.parse(gateway.requests.find((request) => request.method === 'PATCH')!.body),
    ).toEqual({
      disabled: true,
      name: 'ci (paused)',
    });
    const refused = await track(
      send(bff, 'PATCH', `/api/profiles/team/child-keys/${spent.id}`, { limit_usd: 1 }),
    );
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ upstream_status: 400, type: 'invalid_request' });
    expect(errorOf(refused).message).toContain('below what this key has already spent: $3.00');
    const unknown = await track(
      send(bff, 'PATCH', `/api/profiles/team/child-keys/key_nope`, { disabled: false }),
    );
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).advice).toContain('child key');
  });

  it('shows a key’s history', async () => {
    const response = await track(
      rawRequest(bff, { path: `/api/profiles/team/child-keys/${child.id}/events?limit=10` }),
    );
    expect(response.status).toBe(200);
    const history = childKeyEventsSchema.parse(response.json());
    expect(history.events[0]).toMatchObject({ key_id: child.id, action: 'update' });
    expect(history.next_cursor).toBeNull();
    expect(gateway.requests.at(-1)?.url).toBe(`/v1/keys/${child.id}/events?limit=10`);
  });

  it('passes on the gateway’s 403 to a child profile, with its message (masked) and advice that fits', async () => {
    for (const call of [
      () => rawRequest(bff, { path: '/api/profiles/ci%20key/child-keys' }),
      () => postJson(bff, '/api/profiles/ci%20key/child-keys', { kind: 'shared_child', name: 'x' }),
      () => send(bff, 'DELETE', `/api/profiles/ci%20key/child-keys/${spent.id}`),
    ]) {
      const response = await track(call());
      expect(response.status).toBe(403);
      const error = errorOf(response);
      expect(error).toMatchObject({
        upstream_status: 403,
        type: 'permission_denied',
        stage: 'authentication',
      });
      expect(error.message).toContain('Only an account key manages child keys');
      expect(error.advice).toContain('Choose an account profile');
    }
  });

  it('an unknown profile is a 404 naming it, before the gateway is asked', async () => {
    const response = await track(rawRequest(bff, { path: '/api/profiles/nobody/child-keys' }));
    expect(response.status).toBe(404);
    expect(errorOf(response)).toMatchObject({ stage: 'profile', field: 'profile' });
    expect(gateway.requests).toHaveLength(0);
  });

  it('revokes a key and removes the profile holding it, from the keys file too', async () => {
    const response = await track(send(bff, 'DELETE', `/api/profiles/team/child-keys/${child.id}`));
    expect(response.status, response.text).toBe(200);
    const revoked = revokedChildKeySchema.parse(response.json());
    expect(revoked.key).toMatchObject({ id: child.id, state: 'revoked' });
    expect(revoked.removed_profiles).toEqual(['ci key']);
    expect(revoked.message).toContain('"ci key" held it and was removed');
    expect(gateway.keys.get(child.id)!.revokedAt).not.toBeNull();
    const file = JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
    expect(Object.keys(file)).not.toContain('ci key');
    expect(file.team).toBe(account.secret);
    const profiles = profilesSchema.parse(
      (await track(rawRequest(bff, { path: '/api/profiles' }))).json(),
    );
    expect(profiles.profiles.map((profile) => profile.name)).not.toContain('ci key');
    // Revoking a key no profile holds says so.
    const other = revokedChildKeySchema.parse(
      (await track(send(bff, 'DELETE', `/api/profiles/team/child-keys/${spent.id}`))).json(),
    );
    expect(other.removed_profiles).toEqual([]);
    expect(other.message).toContain('No workbench profile held it');
  });

  it('profiles created here come back after a restart', async () => {
    const again = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret },
      keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
    });
    try {
      const profiles = profilesSchema.parse(
        (await rawRequest(again, { path: '/api/profiles' })).json(),
      );
      expect(profiles.profiles.map((profile) => profile.name).sort()).toEqual(
        ['Nightly build - ci', 'team', 'team-2'].sort(),
      );
      expectNoKey(again.logLines, allSecrets());
    } finally {
      await again.close();
    }
  });

  it('no full key in any answer, header or log line', () => {
    expect(responses.length).toBeGreaterThan(20);
    expectNoKey([...answersText(responses), ...bff.logLines], allSecrets());
    // The log does say what happened, by id.
    expect(bff.logLines.join('')).toContain('child key created');
  });
});

describe('child keys without a keys store', () => {
  let gateway: FakeKeyGateway;
  let bff: TestBff;
  let account: FakeKey;

  beforeAll(async () => {
    gateway = await startFakeKeyGateway();
    account = gateway.addKey({ kind: 'account' });
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { default: account.secret },
      environmentProfiles: ['default'],
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('lists, but refuses to create a key with a 409 that says to set WORKBENCH_KEYS_FILE, before the gateway makes one', async () => {
    const list = childKeysSchema.parse(
      (await rawRequest(bff, { path: '/api/profiles/default/child-keys' })).json(),
    );
    expect(list.keys_store).toBeNull();
    expect(list.keys_store_advice).toContain('WORKBENCH_KEYS_FILE');
    const response = await postJson(bff, '/api/profiles/default/child-keys', {
      kind: 'shared_child',
      name: 'x',
    });
    expect(response.status).toBe(409);
    expect(errorOf(response)).toMatchObject({ type: 'keys_store_unavailable' });
    expect(errorOf(response).advice).toContain('WORKBENCH_KEYS_FILE');
    expect(gateway.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(gateway.keys.size).toBe(1);
  });
});

describe('child keys with sign-in on', () => {
  const token = randomBytes(33).toString('base64url');
  let gateway: FakeKeyGateway;
  let bff: TestBff;
  let storePath: string;

  beforeAll(async () => {
    gateway = await startFakeKeyGateway();
    const account = gateway.addKey({ kind: 'account' });
    const child = gateway.addKey({ kind: 'shared_child', parentId: account.id });
    storePath = path.join(mkdtempSync(path.join(tmpdir(), 'child-keys-')), 'keys.json');
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret, child: child.secret },
      keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
      accessToken: token,
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
    rmSync(path.dirname(storePath), { recursive: true, force: true });
  });

  it('needs a session for every key-management route', async () => {
    const id = [...gateway.keys.values()][1]!.id;
    for (const [method, route, body] of [
      ['GET', '/api/profiles/team/child-keys', undefined],
      ['POST', '/api/profiles/team/child-keys', { kind: 'shared_child', name: 'x' }],
      ['PATCH', `/api/profiles/team/child-keys/${id}`, { disabled: true }],
      ['DELETE', `/api/profiles/team/child-keys/${id}`, {}],
      ['GET', `/api/profiles/team/child-keys/${id}/events`, undefined],
      ['GET', `/api/profiles/team/child-keys/${id}/rotation/estimate`, undefined],
      ['POST', `/api/profiles/team/child-keys/${id}/rotation`, { profile: 'child' }],
      // A key id spelled like an open sign-in route opens nothing.
      ['GET', '/api/profiles/team/child-keys/session/events', undefined],
    ] as const) {
      const response = await rawRequest(bff, {
        method,
        path: route,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, `${method} ${route}`).toBe(401);
      expect(errorOf(response)).toMatchObject({ stage: 'session', type: 'sign_in_required' });
    }
    expect(gateway.requests).toHaveLength(0);

    const signIn = await postJson(bff, '/api/sign-in', { token });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const list = await rawRequest(bff, {
      path: '/api/profiles/team/child-keys',
      headers: { cookie },
    });
    expect(list.status).toBe(200);
  });

  it('applies the session check itself, so no order of mounting can skip it', async () => {
    gateway.requests.length = 0;
    const client = createGatewayClient({ baseUrl: gateway.baseUrl, timeouts: defaultTimeouts });
    const profiles = new ProfileStore({ team: [...gateway.keys.values()][0]!.secret });
    const app = express();
    app.use(express.json());
    app.use(
      createChildKeysRouter(
        {
          mode: 'external',
          gateway: client,
          profiles,
          catalog: createCatalogService(client, 0),
          logger: pino({ level: 'silent' }),
          embeddedGateway: null,
        },
        {
          keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
          environmentProfiles: [],
          requireSession: createAccessControl({ token }).requireSession,
        },
      ),
    );
    app.use(
      createErrorHandler(
        () => profiles.allKeys(),
        () => undefined,
      ),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const response = await rawRequest({ port }, { path: '/profiles/team/child-keys' });
      expect(response.status).toBe(401);
      expect(errorOf(response).type).toBe('sign_in_required');
      expect(gateway.requests).toHaveLength(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
