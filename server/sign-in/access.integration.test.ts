/** Sign-in with WORKBENCH_ACCESS_TOKEN: sessions, cookies, the guard, and the listen-address rule. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorSchema, sessionStateSchema } from '../../contract/workbench-api';
import {
  checkListenAddress,
  isLoopbackHost,
  SessionStore,
  sessionLifetimeMs,
  tokenMatches,
} from './access';
import { loadWorkbenchConfig } from '../core/config';
import { startWorkbench } from '../index';
import { createWorkbenchLogger } from '../core/logging';
import { startFakeGateway, type FakeGateway } from '../test-support/fake-gateway';
import {
  fakeKey,
  postJson,
  rawRequest,
  startTestBff,
  type RawResponse,
  type TestBff,
} from '../test-support/harness';

const newToken = () => randomBytes(33).toString('base64url');

/** The `Set-Cookie` lines of an answer. */
const setCookies = (response: RawResponse): string[] => {
  const header = response.headers['set-cookie'];
  return Array.isArray(header) ? header : header ? [header] : [];
};

/** `name=value` of the session cookie an answer set. */
function sessionCookie(response: RawResponse): string {
  const line = setCookies(response).find((cookie) => cookie.startsWith('workbench_session='));
  if (!line) throw new Error('no session cookie was set');
  return line.split(';')[0]!;
}

describe('sign-in off (no WORKBENCH_ACCESS_TOKEN)', () => {
  let gateway: FakeGateway;
  let bff: TestBff;

  beforeAll(async () => {
    gateway = await startFakeGateway();
    bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: fakeKey() } });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('asks for nothing: pages and API calls work as before, and the session says so', async () => {
    expect((await rawRequest(bff, { path: '/api/profiles' })).status).toBe(200);
    // No UI build in tests: the page answers "not built", which is not a redirect to sign in.
    expect((await rawRequest(bff, { path: '/activity' })).status).toBe(503);
    const session = await rawRequest(bff, { path: '/api/session' });
    expect(sessionStateSchema.parse(session.json())).toEqual({
      required: false,
      signed_in: false,
      expires_at: null,
    });
    const signIn = await postJson(bff, '/api/sign-in', { token: 'x'.repeat(40) });
    expect(signIn.status).toBe(404);
    expect(apiErrorSchema.parse(signIn.json()).error.message).toContain('WORKBENCH_ACCESS_TOKEN');
    expect(setCookies(signIn)).toEqual([]);
  });
});

describe('sign-in on (WORKBENCH_ACCESS_TOKEN set)', () => {
  const token = newToken();
  let gateway: FakeGateway;
  let bff: TestBff;

  beforeAll(async () => {
    gateway = await startFakeGateway();
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { main: fakeKey() },
      accessToken: token,
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  it('refuses every API call without a session, before reading its body', async () => {
    for (const path of [
      '/api/profiles',
      '/api/health',
      '/api/generations?profile=main',
      '/api/nope',
    ]) {
      const response = await rawRequest(bff, { path });
      expect(response.status, path).toBe(401);
      expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
        stage: 'session',
        type: 'sign_in_required',
      });
      expect(response.headers['cache-control']).toBe('no-store');
    }
    const post = await postJson(bff, '/api/chat', { profile: 'main' });
    expect(post.status).toBe(401);
    // A forged session cookie is no session.
    const forged = await rawRequest(bff, {
      path: '/api/profiles',
      headers: { cookie: `workbench_session=${randomBytes(32).toString('base64url')}` },
    });
    expect(forged.status).toBe(401);
    expect(gateway.requests).toHaveLength(0);
  });

  it('sends pages to the sign-in page, keeping where the person was going', async () => {
    const page = await rawRequest(bff, { path: '/activity?model=sim%2Fecho&from=2026-11-01' });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe(
      `/sign-in?next=${encodeURIComponent('/activity?model=sim%2Fecho&from=2026-11-01')}`,
    );
    for (const path of ['/', '/index.html', '/keys']) {
      expect((await rawRequest(bff, { path })).status, path).toBe(302);
    }
    // The sign-in page and the build's files are served (here: "not built" and not found).
    expect((await rawRequest(bff, { path: '/sign-in' })).status).toBe(503);
    expect((await rawRequest(bff, { path: '/assets/index-abc123.js' })).status).not.toBe(302);
  });

  it('refuses a wrong token, names the field, and sets no cookie', async () => {
    const response = await postJson(bff, '/api/sign-in', { token: `${token}x` });
    expect(response.status).toBe(401);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'session',
      field: 'token',
      type: 'wrong_token',
    });
    expect(setCookies(response)).toEqual([]);
    const empty = await postJson(bff, '/api/sign-in', { token: '' });
    expect(empty.status).toBe(400);
    expect(apiErrorSchema.parse(empty.json()).error.field).toBe('token');
  });

  it('refuses a sign-in from another site', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/sign-in',
      headers: { origin: 'http://evil.example' },
      body: JSON.stringify({ token }),
    });
    expect(response.status).toBe(403);
    expect(setCookies(response)).toEqual([]);
  });

  it('starts a session with the right token: an httpOnly, SameSite=Strict cookie that expires and never holds the token', async () => {
    const response = await postJson(bff, '/api/sign-in', { token });
    expect(response.status).toBe(200);
    const state = sessionStateSchema.parse(response.json());
    expect(state).toMatchObject({ required: true, signed_in: true });
    expect(state.expires_at! - Date.now()).toBeGreaterThan(sessionLifetimeMs - 60_000);
    expect(response.text).not.toContain(token);

    const cookies = setCookies(response);
    const session = cookies.find((cookie) => cookie.startsWith('workbench_session='))!;
    const attributes = session.split('; ').slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining(['Path=/', 'Max-Age=43200', 'SameSite=Strict', 'HttpOnly']),
    );
    // Served over plain HTTP (loopback): Secure would keep the browser from sending it back.
    expect(attributes).not.toContain('Secure');
    const id = session.split(';')[0]!.slice('workbench_session='.length);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const cookie of cookies) expect(cookie).not.toContain(token);
    // The page's flag grants nothing and holds nothing.
    expect(cookies.find((cookie) => cookie.startsWith('workbench_signed_in='))).toMatch(
      /^workbench_signed_in=1; Path=\/; Max-Age=43200; SameSite=Strict$/,
    );

    const cookie = sessionCookie(response);
    expect((await rawRequest(bff, { path: '/api/profiles', headers: { cookie } })).status).toBe(
      200,
    );
    expect((await rawRequest(bff, { path: '/activity', headers: { cookie } })).status).toBe(503);
    const now = sessionStateSchema.parse(
      (await rawRequest(bff, { path: '/api/session', headers: { cookie } })).json(),
    );
    expect(now).toMatchObject({ required: true, signed_in: true });
  });

  it('marks the cookie Secure when the page came over HTTPS (through a proxy)', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/sign-in',
      headers: { 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ token }),
    });
    expect(response.status).toBe(200);
    for (const cookie of setCookies(response)) expect(cookie.split('; ')).toContain('Secure');
  });

  it('signs out: the session ends on the server and the cookies are cleared', async () => {
    const cookie = sessionCookie(await postJson(bff, '/api/sign-in', { token }));
    const out = await rawRequest(bff, {
      method: 'POST',
      path: '/api/sign-out',
      headers: { cookie },
      body: '{}',
    });
    expect(out.status).toBe(200);
    expect(sessionStateSchema.parse(out.json())).toMatchObject({
      required: true,
      signed_in: false,
    });
    expect(setCookies(out)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^workbench_session=; Path=\/; Max-Age=0; SameSite=Strict; HttpOnly/),
        expect.stringMatching(/^workbench_signed_in=; Path=\/; Max-Age=0/),
      ]),
    );
    // The old cookie, replayed, is no session any more.
    expect((await rawRequest(bff, { path: '/api/profiles', headers: { cookie } })).status).toBe(
      401,
    );
  });

  it('never writes the token to a log line, even in a body that is not JSON', async () => {
    await rawRequest(bff, {
      method: 'POST',
      path: '/api/sign-in',
      body: `{"token": "${token}"`,
    });
    await rawRequest(bff, { path: `/api/profiles?token=${token}` });
    await postJson(bff, '/api/sign-in', { token });
    await postJson(bff, '/api/sign-in', { token: `${token}-wrong` });
    expect(bff.logLines.length).toBeGreaterThan(0);
    expect(bff.logLines.join('')).not.toContain(token);
    expect(bff.logLines.join('')).not.toContain(token.slice(0, 20));
  });
});

describe('failed sign-ins are throttled', () => {
  it('makes an address wait after five wrong tokens, the right one included', async () => {
    const token = newToken();
    const gateway = await startFakeGateway();
    const bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, accessToken: token });
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect((await postJson(bff, '/api/sign-in', { token: newToken() })).status).toBe(401);
      }
      const refused = await postJson(bff, '/api/sign-in', { token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(apiErrorSchema.parse(refused.json()).error.type).toBe('sign_in_throttled');
      expect(setCookies(refused)).toEqual([]);
    } finally {
      await bff.close();
      await gateway.close();
    }
  });
});

describe('sessions', () => {
  it('expire after their lifetime and keep only a hash of the id', () => {
    let now = 1_000_000;
    const store = new SessionStore(sessionLifetimeMs, () => now);
    const session = store.create();
    expect(session.expiresAt).toBe(now + sessionLifetimeMs);
    expect(store.expiresAt(session.id)).toBe(session.expiresAt);
    expect(
      JSON.stringify([...(store as unknown as { sessions: Map<string, number> }).sessions]),
    ).not.toContain(session.id);
    now += sessionLifetimeMs - 1;
    expect(store.expiresAt(session.id)).not.toBeNull();
    now += 1;
    expect(store.expiresAt(session.id)).toBeNull();
    expect(store.expiresAt(undefined)).toBeNull();
    expect(store.size).toBe(0);
  });

  it('compares tokens whatever their lengths', () => {
    const token = newToken();
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(token, `${token} `)).toBe(false);
    expect(tokenMatches(token, '')).toBe(false);
    expect(tokenMatches(token, token.slice(0, -1))).toBe(false);
  });
});

describe('the listen address', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['workbench.example.com', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('refuses to listen off loopback without WORKBENCH_ACCESS_TOKEN, saying why', async () => {
    expect(() => checkListenAddress('0.0.0.0', undefined)).toThrow(
      /^WORKBENCH_ACCESS_TOKEN: must be set to listen on 0\.0\.0\.0 .*not a loopback address.*spend the keys/,
    );
    expect(() => checkListenAddress('127.0.0.1', undefined)).not.toThrow();
    expect(() => checkListenAddress('0.0.0.0', newToken())).not.toThrow();
    expect(() => checkListenAddress('0.0.0.0', undefined, true)).not.toThrow();
    await expect(
      startWorkbench({
        gatewayBaseUrl: 'http://127.0.0.1:9',
        mode: 'external',
        profiles: {},
        listenHost: '0.0.0.0',
        listenPort: 0,
        logger: createWorkbenchLogger({ level: 'silent' }),
        staticDir: '/nonexistent-dist',
      }),
    ).rejects.toThrow(/WORKBENCH_ACCESS_TOKEN/);
  });

  it('listens off loopback with a token', async () => {
    const running = await startWorkbench({
      gatewayBaseUrl: 'http://127.0.0.1:9',
      mode: 'external',
      profiles: {},
      listenHost: '0.0.0.0',
      listenPort: 0,
      logger: createWorkbenchLogger({ level: 'silent' }),
      staticDir: '/nonexistent-dist',
      accessToken: newToken(),
    });
    try {
      const response = await rawRequest(running, { path: '/api/profiles' });
      expect(response.status).toBe(401);
    } finally {
      await running.close();
    }
  });
});

describe('WORKBENCH_ACCESS_TOKEN', () => {
  it('is read, and a short one stops start-up naming the variable without quoting it', () => {
    const token = newToken();
    expect(loadWorkbenchConfig({ WORKBENCH_ACCESS_TOKEN: token }).accessToken).toBe(token);
    expect(loadWorkbenchConfig({}).accessToken).toBeUndefined();
    const short = 'short-secret-123';
    expect(() => loadWorkbenchConfig({ WORKBENCH_ACCESS_TOKEN: short })).toThrow(
      /^WORKBENCH_ACCESS_TOKEN: must be at least 32 characters/,
    );
    try {
      loadWorkbenchConfig({ WORKBENCH_ACCESS_TOKEN: `${token} with spaces` });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/^WORKBENCH_ACCESS_TOKEN: /);
      expect((error as Error).message).not.toContain(token);
    }
  });
});
