/**
 * People who sign in through a real OpenID Connect provider (oidc-provider, on loopback) to a
 * BFF in front of a real gateway process: each gets a key of their own under the team key and
 * sees only it; a member is refused every route that names another profile and every admin
 * route; an admin sees everyone, changes a budget, disables and removes a person; every change is
 * in the audit log, which downloads as CSV; the mapping survives a restart.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { apiErrorSchema, profilesSchema, sessionStateSchema } from '../../contract/workbench-api';
import {
  auditLogSchema,
  handedOverOwnKeySchema,
  peopleSchema,
} from '../../contract/workbench-people';
import { freePort, startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';
import { startTestOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider-server';
import { createWorkbenchApp } from '../app';
import type { OidcSettings } from '../core/config';
import { KeysStore } from '../keys/keys-store';
import { startFakeGateway, type FakeGateway } from '../test-support/fake-gateway';
import { fakeKey, rawRequest, startTestBff, type TestBff } from '../test-support/harness';
import { oidcSignIn } from '../test-support/oidc-sign-in';

const accounts = {
  alice: { email: 'alice@example.com', name: 'Alice', groups: ['engineering'] },
  bob: { email: 'bob@example.com', name: 'Bob', groups: ['engineering'] },
  carol: { email: 'carol@example.com', name: 'Carol', groups: ['gw-admins'] },
  // On the admin list, but the provider says the address is not verified: a member.
  mallory: { email: 'dave@example.com', name: 'Mallory', groups: [], emailVerified: false },
};

function settingsFor(provider: TestOidcProvider, publicUrl: string): OidcSettings {
  return {
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    publicUrl,
    adminEmails: ['dave@example.com'],
    adminGroups: ['gw-admins'],
    groupsClaim: 'groups',
    teamProfile: 'team',
    // The gateway keeps both: a budget that renews, and the models a person's key may use.
    defaultPolicy: {
      kind: 'allocated_child',
      limit_usd: 5,
      limit_reset: 'monthly',
      allowed_models: ['sim/chat-*', 'sim/echo-*'],
    },
    policyFile: null,
  };
}

/** The identity provider, and a folder for the BFF's files, for a BFF to listen on `port`. */
async function startProviderAndFolder(prefix: string) {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = await startTestOidcProvider({
    accounts,
    redirectUris: [`${publicUrl}/auth/oidc/callback`],
  });
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  const close = async () => {
    await provider.close();
    rmSync(folder, { recursive: true, force: true });
  };
  return { port, publicUrl, provider, folder, close };
}

const call = (bff: TestBff, cookie: string, method: string, url: string, body?: unknown) =>
  rawRequest(bff, {
    method,
    path: url,
    headers: { cookie },
    ...(body !== undefined || method !== 'GET' ? { body: JSON.stringify(body ?? {}) } : {}),
  });

const sessionOf = async (bff: TestBff, cookie: string) =>
  sessionStateSchema.parse((await call(bff, cookie, 'GET', '/api/session')).json());

const profilesSeen = async (bff: TestBff, cookie: string) =>
  profilesSchema
    .parse((await call(bff, cookie, 'GET', '/api/profiles')).json())
    .profiles.map((profile) => profile.name)
    .sort();

describe('people signed in with OpenID Connect, against a real gateway', () => {
  let gateway: GatewayProcess;
  let bed: Awaited<ReturnType<typeof startProviderAndFolder>>;
  let bff: TestBff;
  let folder: string;
  let storePath: string;
  let settings: OidcSettings;
  let team: { id: string; key: string };
  const cookies: Record<string, string> = {};
  const profileOf: Record<string, string> = {};
  const personIdOf: Record<string, string> = {};

  const startBff = async () =>
    startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      mode: 'embedded',
      profiles: { team: team.key },
      keysStore: new KeysStore({ path: storePath, origin: 'embedded' }),
      listenPort: Number(new URL(settings.publicUrl).port),
      oidc: settings,
    });

  /** Alice's own profile's `GET /api/<route>?profile=`. */
  const aliceReads = (route: string) =>
    call(
      bff,
      cookies.alice!,
      'GET',
      `/api/${route}?profile=${encodeURIComponent(profileOf.alice!)}`,
    );

  const signInAs = async (login: keyof typeof accounts) => {
    cookies[login] = (await oidcSignIn(bff.url, login)).cookie;
    const session = await sessionOf(bff, cookies[login]);
    profileOf[login] = session.person?.profile ?? '';
    personIdOf[login] = session.person?.id ?? '';
    return session;
  };

  beforeAll(async () => {
    gateway = await startGatewayProcess();
    team = await gateway.createKey(['--kind', 'account', '--limit-usd', '50', '--name', 'team']);
    bed = await startProviderAndFolder('bff-people-');
    folder = bed.folder;
    storePath = path.join(folder, 'workbench-keys.json');
    settings = settingsFor(bed.provider, bed.publicUrl);
    bff = await startBff();
  });

  afterAll(async () => {
    await bff?.close();
    await bed?.close();
    await gateway?.stop();
  });

  it('gives each person a key of their own, and shows each only their own', async () => {
    const alice = await signInAs('alice');
    const bob = await signInAs('bob');
    expect(alice).toMatchObject({ signed_in: true, role: 'member' });
    expect(bob).toMatchObject({ signed_in: true, role: 'member' });
    expect(profileOf.alice).not.toBe('');
    expect(profileOf.bob).not.toBe(profileOf.alice);

    expect(await profilesSeen(bff, cookies.alice!)).toEqual([profileOf.alice]);
    expect(await profilesSeen(bff, cookies.bob!)).toEqual([profileOf.bob]);
    // Their keys are real child keys of the team key, with the policy's limit.
    const balance = await aliceReads('balance');
    expect(balance.status).toBe(200);
    // The real gateway keeps the policy's period and models on the key.
    const startOfMonth = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) / 1000;
    expect(balance.json()).toMatchObject({
      balance: {
        identity: 'allocated_child',
        limit_usd: 5,
        limit_reset: 'monthly',
        period_started_at: startOfMonth,
        allowed_models: ['sim/chat-*', 'sim/echo-*'],
      },
    });
    // Kept server side: the keys store holds them, the browser never saw them.
    const stored = JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual([profileOf.alice, profileOf.bob].sort());
    for (const secret of Object.values(stored)) expect(balance.text).not.toContain(secret);

    // The authorization codes of these sign-ins are not in the log.
    const logged = bff.logLines.join('');
    expect(logged).toContain('/auth/oidc/callback?code=[redacted]');
    expect(logged).not.toMatch(/callback\?code=(?!\[redacted\])/);

    const mallory = await signInAs('mallory');
    expect(mallory.role).toBe('member');
    const carol = await signInAs('carol');
    expect(carol.role).toBe('admin');
    expect(await profilesSeen(bff, cookies.carol!)).toEqual(
      ['team', profileOf.alice!, profileOf.bob!, profileOf.carol!, profileOf.mallory!].sort(),
    );
  });

  it('refuses a callback this browser did not start, a wrong state, and says why', async () => {
    const errorOf = (response: { status: number; headers: Record<string, unknown> }) => {
      expect(response.status).toBe(302);
      const location = new URL(String(response.headers.location), bff.url);
      expect(location.pathname).toBe('/sign-in');
      return location.searchParams.get('oidc_error') ?? '';
    };
    const unbound = await rawRequest(bff, { path: '/auth/oidc/callback?code=x&state=y' });
    expect(errorOf(unbound)).toContain('not started in this browser');

    const pendingCookie = async () => {
      const started = await rawRequest(bff, { path: '/auth/oidc/sign-in?next=/keys' });
      expect(started.status).toBe(302);
      expect(String(started.headers.location)).toContain('code_challenge_method=S256');
      const cookie = [started.headers['set-cookie'] ?? []].flat()[0]!;
      expect(cookie).toMatch(/^workbench_oidc=[^;]+; .*SameSite=Lax; HttpOnly/);
      return cookie.split(';')[0]!;
    };
    const forged = await rawRequest(bff, {
      // With the issuer named (RFC 9207), so the state check is what refuses it.
      path: `/auth/oidc/callback?code=x&state=not-the-one-sent&iss=${encodeURIComponent(bed.provider.issuer)}`,
      headers: { cookie: await pendingCookie() },
    });
    expect(errorOf(forged)).toMatch(/could not be verified.*"state"/);
    const noIssuer = await rawRequest(bff, {
      path: '/auth/oidc/callback?code=x&state=y',
      headers: { cookie: await pendingCookie() },
    });
    expect(errorOf(noIssuer)).toMatch(/could not be verified.*"iss"/);
    const refused = await rawRequest(bff, {
      path: '/auth/oidc/callback?error=access_denied&error_description=no',
      headers: { cookie: await pendingCookie() },
    });
    expect(errorOf(refused)).toContain('refused the sign-in (access_denied: no)');
  });

  it("refuses a member every route that names another's profile, and every admin route", async () => {
    const others = [profileOf.bob!, 'team'];
    const keyId = 'key_0000000000';
    const routes = (profile: string): [string, string, unknown?][] => {
      const encoded = encodeURIComponent(profile);
      const keys = `/api/profiles/${encoded}/child-keys`;
      const hooks = `/api/profiles/${encoded}/webhooks`;
      return [
        ['GET', `/api/balance?profile=${encoded}`],
        ['POST', '/api/balance/probe', { profile }],
        ['POST', '/api/chat', { profile, request: { model: 'sim/chat-small', messages: [] } }],
        ['POST', '/api/embeddings', { profile, model: 'sim/embed', input: 'x' }],
        [
          'POST',
          '/api/count-tokens',
          { profile, request: { model: 'sim/chat-small', messages: [] } },
        ],
        ['GET', `/api/generation?profile=${encoded}&id=x`],
        ['GET', `/api/generations?profile=${encoded}`],
        ['GET', `/api/activity?profile=${encoded}`],
        ['GET', `/api/activity/sessions?profile=${encoded}`],
        ['GET', `/api/activity/batches?profile=${encoded}`],
        [
          'POST',
          '/api/batches',
          { profile, endpoint: '/v1/embeddings', file_name: 'a', content: '{}' },
        ],
        ['GET', `/api/batches/batch_1?profile=${encoded}`],
        ['POST', '/api/batches/batch_1/cancel', { profile }],
        ['GET', `/api/batches/batch_1/results?profile=${encoded}&file=output`],
        ['GET', `/api/validate-key/estimate?profile=${encoded}`],
        ['POST', '/api/validate-key', { profile }],
        ['GET', `/api/checks?profile=${encoded}`],
        ['POST', '/api/checks', { profile }],
        ['GET', keys],
        ['POST', keys, { kind: 'allocated_child', name: 'x' }],
        ['POST', `${keys}/hand-over`, { kind: 'allocated_child', name: 'x', show_once: true }],
        ['PATCH', `${keys}/${keyId}`, { disabled: true }],
        ['DELETE', `${keys}/${keyId}`, {}],
        ['GET', `${keys}/${keyId}/events`],
        ['GET', `${keys}/${keyId}/rotation/estimate`],
        ['POST', `${keys}/${keyId}/rotation`, {}],
        ['POST', `${keys}/${keyId}/rotation/hand-over`, { show_once: true }],
        ['GET', hooks],
        ['POST', hooks, { url: 'https://example.com/hook' }],
        ['GET', `${hooks}/wh_1`],
        ['PATCH', `${hooks}/wh_1`, { disabled: true }],
        ['DELETE', `${hooks}/wh_1`, {}],
        ['POST', `${hooks}/wh_1/test`, {}],
        ['GET', `${hooks}/wh_1/deliveries`],
        // A second name in the query cannot smuggle one in beside the member's own.
        ['GET', `/api/balance?profile=${encodeURIComponent(profileOf.alice!)}&profile=${encoded}`],
      ];
    };
    for (const profile of others) {
      for (const [method, url, body] of routes(profile)) {
        const response = await call(bff, cookies.alice!, method, url, body);
        expect(response.status, `${method} ${url}`).toBe(403);
        expect(apiErrorSchema.parse(response.json()).error.type, `${method} ${url}`).toBe(
          'not_your_profile',
        );
      }
    }
    const adminRoutes: [string, string, unknown?][] = [
      ['GET', '/api/people'],
      ['PATCH', `/api/people/${personIdOf.bob}`, { limit_usd: 100 }],
      [
        'PUT',
        '/api/people/policy',
        { kind: 'allocated_child', limit_usd: 100, limit_reset: 'none', allowed_models: [] },
      ],
      ['DELETE', `/api/people/${personIdOf.bob}`, {}],
      ['GET', '/api/audit'],
      ['GET', '/api/audit?format=csv'],
    ];
    for (const [method, url, body] of adminRoutes) {
      const response = await call(bff, cookies.alice!, method, url, body);
      expect(response.status, `${method} ${url}`).toBe(403);
      expect(apiErrorSchema.parse(response.json()).error.type).toBe('admin_only');
    }
    // Her own profile passes the guard on the same routes.
    const own = await aliceReads('activity');
    expect(own.status).toBe(200);
  });

  it('lists every route the BFF has in the refusal table above, or as naming no profile', () => {
    // A new route must be added to the table (or here): the guard's proof covers each one.
    const namesNoProfile = new Set([
      'GET /session',
      'POST /sign-in',
      'POST /sign-out',
      'GET /health',
      'GET /profiles',
      'GET /catalog',
      'GET /catalog/endpoints',
      'GET /catalog/endpoints/stats',
      'GET /people',
      'GET /people/me',
      'POST /people/me/key/hand-over',
      'PATCH /people/:id',
      'PUT /people/policy',
      'DELETE /people/:id',
      'GET /audit',
      'GET /auth/oidc/sign-in',
      'GET /auth/oidc/callback',
    ]);
    const inTable = new Set([
      'GET /balance',
      'POST /balance/probe',
      'POST /chat',
      'POST /embeddings',
      'POST /count-tokens',
      'GET /generation',
      'GET /generations',
      'GET /activity',
      'GET /activity/sessions',
      'GET /activity/batches',
      'POST /batches',
      'GET /batches/:id',
      'POST /batches/:id/cancel',
      'GET /batches/:id/results',
      'GET /validate-key/estimate',
      'POST /validate-key',
      'GET /checks',
      'POST /checks',
      'GET /profiles/:profile/child-keys',
      'POST /profiles/:profile/child-keys',
      'POST /profiles/:profile/child-keys/hand-over',
      'PATCH /profiles/:profile/child-keys/:id',
      'DELETE /profiles/:profile/child-keys/:id',
      'GET /profiles/:profile/child-keys/:id/events',
      'GET /profiles/:profile/child-keys/:id/rotation/estimate',
      'POST /profiles/:profile/child-keys/:id/rotation',
      'POST /profiles/:profile/child-keys/:id/rotation/hand-over',
      'GET /profiles/:profile/webhooks',
      'POST /profiles/:profile/webhooks',
      'GET /profiles/:profile/webhooks/:id',
      'PATCH /profiles/:profile/webhooks/:id',
      'DELETE /profiles/:profile/webhooks/:id',
      'POST /profiles/:profile/webhooks/:id/test',
      'GET /profiles/:profile/webhooks/:id/deliveries',
    ]);
    const { app } = createWorkbenchApp({
      gatewayBaseUrl: gateway.baseUrl,
      mode: 'external',
      profiles: {},
      listenHost: '127.0.0.1',
      listenPort: 0,
      logger: pino({ level: 'silent' }),
      staticDir: '/nonexistent-dist',
      keysStore: null,
      oidc: settings,
    });
    for (const route of routesOf(app.router)) {
      expect(inTable.has(route) || namesNoProfile.has(route), route).toBe(true);
    }
  });

  it('lets an admin see everyone, change a budget, and records it in the audit log', async () => {
    const listed = peopleSchema.parse(
      (await call(bff, cookies.carol!, 'GET', '/api/people')).json(),
    );
    const emails = listed.people.map((person) => person.email);
    expect(emails).toEqual(expect.arrayContaining(['alice@example.com', 'bob@example.com']));
    const alice = listed.people.find((person) => person.email === 'alice@example.com')!;
    expect(alice).toMatchObject({
      role: 'member',
      profile: profileOf.alice,
      key: { limit_usd: 5 },
    });

    const changed = await call(bff, cookies.carol!, 'PATCH', `/api/people/${alice.id}`, {
      limit_usd: 3,
    });
    expect(changed.status).toBe(200);
    expect(changed.json()).toMatchObject({ person: { key: { limit_usd: 3 } } });
    const balance = await aliceReads('balance');
    expect(balance.json()).toMatchObject({ balance: { limit_usd: 3 } });

    const audit = auditLogSchema.parse(
      (await call(bff, cookies.carol!, 'GET', '/api/audit')).json(),
    );
    const entry = audit.entries.find((item) => item.action === 'person.update');
    expect(entry).toMatchObject({
      actor: { kind: 'person', email: 'carol@example.com', role: 'admin' },
      target: { type: 'person', id: alice.id },
      before: { key: { limit_usd: 5 } },
      after: { key: { limit_usd: 3 } },
    });
    // A change through the key routes is recorded too, with the key before and after.
    const keyChange = await call(
      bff,
      cookies.carol!,
      'PATCH',
      `/api/profiles/team/child-keys/${alice.key_id}`,
      {
        name: 'alice laptop',
      },
    );
    expect(keyChange.status).toBe(200);
    const keyAudit = auditLogSchema.parse(
      (await call(bff, cookies.carol!, 'GET', '/api/audit')).json(),
    );
    expect(keyAudit.entries[0]).toMatchObject({
      action: 'key.update',
      actor: { email: 'carol@example.com' },
      target: { type: 'key', id: alice.key_id },
      before: { name: expect.stringContaining('alice@example.com') },
      after: { name: 'alice laptop' },
    });

    // A rotation from the Keys page moves her profile to a new key: the People page follows it,
    // and the log has the rotation's outcome (streamed answers are recorded too).
    const rotated = await call(
      bff,
      cookies.carol!,
      'POST',
      `/api/profiles/team/child-keys/${alice.key_id}/rotation`,
      { profile: profileOf.alice },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.text).toContain('"ok":true');
    const after = peopleSchema.parse(
      (await call(bff, cookies.carol!, 'GET', '/api/people')).json(),
    );
    const newKeyId = after.people.find((person) => person.id === alice.id)!.key_id;
    expect(newKeyId).not.toBe(alice.key_id);
    const rotationAudit = auditLogSchema.parse(
      (await call(bff, cookies.carol!, 'GET', '/api/audit')).json(),
    );
    expect(rotationAudit.entries[0]).toMatchObject({
      action: 'key.rotate',
      target: { id: alice.key_id },
      after: { ok: true, new_key_id: newKeyId },
    });

    const csv = await call(bff, cookies.carol!, 'GET', '/api/audit?format=csv');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toContain('workbench-audit.csv');
    expect(csv.text.split('\r\n')[0]).toBe(
      'at,actor_kind,actor_email,actor_role,action,target_type,target_id,before,after',
    );
    expect(csv.text).toContain('"person.update"');
  });

  it("hands a person's own key over once, and the workbench's profile keeps working", async () => {
    const refused = await call(bff, cookies.alice!, 'POST', '/api/people/me/key/hand-over', {});
    expect(refused.status).toBe(400);
    const handed = await call(bff, cookies.alice!, 'POST', '/api/people/me/key/hand-over', {
      show_once: true,
    });
    expect(handed.status).toBe(200);
    expect(handed.headers['cache-control']).toBe('no-store');
    const { secret } = handedOverOwnKeySchema.parse(handed.json());
    const direct = await fetch(`${gateway.baseUrl}/v1/key`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(direct.status).toBe(200);
    const balance = await aliceReads('balance');
    expect(balance.status).toBe(200);
    expect(bff.logLines.join('')).not.toContain(secret);
  });

  it('disables a person: their key gets 402 at once and their session ends', async () => {
    const bobKey = (JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>)[
      profileOf.bob!
    ]!;
    const chat = () =>
      fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bobKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'sim/chat-standard',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 1,
        }),
      });
    expect((await chat()).status).toBe(200);
    const disabled = await call(bff, cookies.carol!, 'PATCH', `/api/people/${personIdOf.bob}`, {
      disabled: true,
    });
    expect(disabled.status).toBe(200);
    expect((await chat()).status).toBe(402);
    expect((await call(bff, cookies.bob!, 'GET', '/api/profiles')).status).toBe(401);
    await expect(oidcSignIn(bff.url, 'bob')).rejects.toThrow(/oidc_error=.*disabled/);
  });

  it('removes a person: key revoked, profile gone, and the rest survives a restart', async () => {
    const removed = await call(bff, cookies.carol!, 'DELETE', `/api/people/${personIdOf.bob}`, {});
    expect(removed.status).toBe(200);
    const stored = JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored)).not.toContain(profileOf.bob);
    const people = readFileSync(path.join(folder, 'workbench-people.json'), 'utf8');
    expect(people).not.toContain('bob@example.com');

    await bff.close();
    bff = await startBff();
    // Sessions are not kept across a restart; Alice signs in again and finds the same key.
    const alice = await signInAs('alice');
    expect(alice.person?.profile).toBe(
      Object.keys(stored).find((name) => name === alice.person?.profile),
    );
    expect(await profilesSeen(bff, cookies.alice!)).toEqual([alice.person!.profile]);
    const audit = auditLogSchema.parse(
      (await call(bff, (await oidcSignIn(bff.url, 'carol')).cookie, 'GET', '/api/audit')).json(),
    );
    expect(audit.entries.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['person.remove', 'person.disable', 'person.update', 'key.create']),
    );
  });
});

describe("people's key policy, as the BFF sends it", () => {
  let gateway: FakeGateway;
  let bed: Awaited<ReturnType<typeof startProviderAndFolder>>;
  let bff: TestBff;

  beforeAll(async () => {
    gateway = await startFakeGateway((request, response) => {
      response.setHeader('content-type', 'application/json');
      const key = {
        object: 'api_key',
        id: 'key_person',
        kind: 'allocated_child',
        parent_id: 'key_team',
        name: 'person',
        key: 'sk-…abcd',
        state: 'active',
        limit_usd: 20,
        grace_usd: 0,
        consumption_usd: 0,
        remaining_usd: 20,
        expires_at: null,
        disabled: false,
        created_at: 1,
        limit_reset: 'monthly',
        resets_at: 2_000_000_000,
        allowed_models: ['sim/chat-*'],
      };
      if (request.method === 'POST' && request.url === '/v1/keys') {
        response.end(JSON.stringify({ object: 'issued_key', key: fakeKey(), data: key }));
        return;
      }
      if (request.method === 'GET' && request.url === '/v1/keys') {
        response.end(JSON.stringify({ object: 'list', data: [key] }));
        return;
      }
      if (request.url.startsWith('/v1/keys/key_person')) {
        response.end(JSON.stringify(key));
        return;
      }
      response.statusCode = 404;
      response.end(JSON.stringify({ error: { message: 'not here' } }));
    });
    bed = await startProviderAndFolder('bff-policy-');
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: fakeKey() },
      keysStore: new KeysStore({ path: path.join(bed.folder, 'keys.json'), origin: 'keys_file' }),
      listenPort: bed.port,
      oidc: {
        ...settingsFor(bed.provider, bed.publicUrl),
        defaultPolicy: {
          kind: 'allocated_child',
          limit_usd: 10,
          limit_reset: 'daily',
          allowed_models: [],
        },
      },
      groupPolicies: [
        [
          'engineering',
          {
            kind: 'allocated_child',
            limit_usd: 20,
            limit_reset: 'monthly',
            allowed_models: ['sim/chat-*'],
          },
        ],
      ],
    });
  });

  afterAll(async () => {
    await bff?.close();
    await bed?.close();
    await gateway?.close();
  });

  it("creates a person's key with their group's period and models, and changes them", async () => {
    const { cookie: alice } = await oidcSignIn(bff.url, 'alice');
    const created = gateway.requests.find(
      (request) => request.method === 'POST' && request.url === '/v1/keys',
    );
    expect(JSON.parse(created!.body)).toMatchObject({
      kind: 'allocated_child',
      limit_usd: 20,
      limit_reset: 'monthly',
      allowed_models: ['sim/chat-*'],
    });
    const me = await call(bff, alice, 'GET', '/api/people/me');
    expect(me.json()).toMatchObject({
      person: {
        key: { limit_reset: 'monthly', resets_at: 2_000_000_000, allowed_models: ['sim/chat-*'] },
      },
    });

    const { cookie: carol } = await oidcSignIn(bff.url, 'carol');
    // Carol is in no policy group: the default policy, with its period.
    const carolKey = gateway.requests.filter(
      (request) => request.method === 'POST' && request.url === '/v1/keys',
    )[1];
    expect(JSON.parse(carolKey!.body)).toMatchObject({ limit_usd: 10, limit_reset: 'daily' });
    expect(JSON.parse(carolKey!.body)).not.toHaveProperty('allowed_models');

    const personId = (await sessionOf(bff, alice)).person!.id;
    const changed = await call(bff, carol, 'PATCH', `/api/people/${personId}`, {
      limit_reset: 'weekly',
      allowed_models: ['anthropic/*'],
    });
    expect(changed.status).toBe(200);
    const patch = gateway.requests.find((request) => request.method === 'PATCH');
    expect(JSON.parse(patch!.body)).toEqual({
      limit_reset: 'weekly',
      allowed_models: ['anthropic/*'],
    });

    // An admin sets the policy for new keys: the next person's key follows it, and it is logged.
    const badPolicy = await call(bff, carol, 'PUT', '/api/people/policy', {
      kind: 'shared_child',
      limit_usd: 5,
      limit_reset: 'none',
      allowed_models: [],
    });
    expect(badPolicy.status).toBe(400);
    expect(apiErrorSchema.parse(badPolicy.json()).error.message).toContain('limit_usd');
    const policy = {
      kind: 'allocated_child',
      limit_usd: 7,
      limit_reset: 'weekly',
      allowed_models: [],
    };
    expect((await call(bff, carol, 'PUT', '/api/people/policy', policy)).status).toBe(200);
    await oidcSignIn(bff.url, 'mallory');
    const malloryKey = gateway.requests
      .filter((request) => request.method === 'POST' && request.url === '/v1/keys')
      .at(-1);
    expect(JSON.parse(malloryKey!.body)).toMatchObject({ limit_usd: 7, limit_reset: 'weekly' });
    const listed = peopleSchema.parse((await call(bff, carol, 'GET', '/api/people')).json());
    expect(listed).toMatchObject({ default_policy: policy, policy_source: 'workbench' });
    const audit = auditLogSchema.parse((await call(bff, carol, 'GET', '/api/audit')).json());
    expect(audit.entries.find((entry) => entry.action === 'policy.update')).toMatchObject({
      actor: { email: 'carol@example.com' },
      before: { limit_usd: 10, limit_reset: 'daily' },
      after: policy,
    });
  });
});

/** `METHOD /path` of every route the app's routers hold (Express 5's router stack). */
function routesOf(router: unknown): string[] {
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
    handle?: { stack?: Layer[] };
  }
  const found: string[] = [];
  const visit = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          found.push(`${method.toUpperCase()} ${layer.route.path}`);
        }
      } else if (layer.handle?.stack) {
        visit(layer.handle.stack);
      }
    }
  };
  visit((router as { stack: Layer[] }).stack);
  return found;
}
