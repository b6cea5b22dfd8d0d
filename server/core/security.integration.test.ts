import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkbenchConfig } from './config';
import { contentSecurityPolicy, isAllowedHost } from './security';
import { startFakeGateway, type FakeGateway } from '../test-support/fake-gateway';
import { fakeKey, rawRequest, startTestBff, type TestBff } from '../test-support/harness';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let gateway: FakeGateway;
let bff: TestBff;
const staticDir = mkdtempSync(path.join(tmpdir(), 'workbench-ui-'));

beforeAll(async () => {
  writeFileSync(
    path.join(staticDir, 'index.html'),
    '<!doctype html><title>Workbench</title><script type="module" src="/assets/app.js"></script>',
  );
  mkdirSync(path.join(staticDir, 'assets'));
  writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'export {};');
  gateway = await startFakeGateway();
  bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    profiles: { main: fakeKey() },
    allowedHosts: ['workbench.example.com'],
    staticDir,
  });
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

describe('listen address', () => {
  it('defaults to 127.0.0.1:5173', () => {
    expect(loadWorkbenchConfig({})).toMatchObject({ host: '127.0.0.1', port: 5173 });
  });

  it('binds to the loopback address it is given by default', () => {
    expect(bff.url).toBe(`http://127.0.0.1:${bff.port}`);
  });
});

describe('Host check (DNS rebinding)', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])(
    'accepts %s with the listen port',
    async (name) => {
      const response = await rawRequest(bff, {
        path: '/api/health',
        headers: { host: `${name}:${bff.port}` },
      });
      expect(response.status).toBe(200);
    },
  );

  it.each([
    ['a rebinding name', () => `attacker.example:${bff.port}`],
    ['a loopback name with another port', () => `127.0.0.1:${bff.port + 1}`],
    ['a loopback name without a port', () => 'localhost'],
    ['a malformed value', () => 'a b'],
  ])('refuses %s with 403', async (_label, host) => {
    const response = await rawRequest(bff, { path: '/api/profiles', headers: { host: host() } });
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ error: { field: 'Host' } });
  });

  it('refuses pages too, not only the API', async () => {
    const response = await rawRequest(bff, {
      path: '/catalog',
      headers: { host: 'attacker.example' },
    });
    expect(response.status).toBe(403);
  });

  it('accepts a name from WORKBENCH_ALLOWED_HOSTS', async () => {
    const response = await rawRequest(bff, {
      path: '/api/health',
      headers: { host: 'workbench.example.com' },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a request without Host', async () => {
    expect(isAllowedHost(undefined, { host: '127.0.0.1', port: 80 }, [])).toBe(false);
  });
});

describe('state-changing requests', () => {
  const body = JSON.stringify({ profile: 'main', include_paid: false });

  it('refuses a body that is not application/json with 415', async () => {
    const gatewayCallsBefore = gateway.requests.length;
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const response = await rawRequest(bff, {
        method: 'POST',
        path: '/api/checks',
        body,
        headers: { 'content-type': contentType },
      });
      expect(response.status).toBe(415);
    }
    const missing = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body,
      bare: true,
      headers: { host: `127.0.0.1:${bff.port}`, origin: `http://127.0.0.1:${bff.port}` },
    });
    expect(missing.status).toBe(415);
    expect(gateway.requests).toHaveLength(gatewayCallsBefore);
  });

  it('accepts application/json with a charset', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a cross-origin request with 403', async () => {
    for (const origin of [
      'http://attacker.example',
      'null',
      `http://127.0.0.1:${bff.port + 1}`,
      'not a url',
    ]) {
      const response = await rawRequest(bff, {
        method: 'POST',
        path: '/api/checks',
        body,
        headers: { origin },
      });
      expect(response.status).toBe(403);
      expect(response.json()).toMatchObject({ error: { field: 'Origin' } });
    }
  });

  it('uses Sec-Fetch-Site when Origin is absent', async () => {
    const headers = (site?: string) => ({
      host: `127.0.0.1:${bff.port}`,
      'content-type': 'application/json',
      ...(site ? { 'sec-fetch-site': site } : {}),
    });
    const sameOrigin = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body,
      bare: true,
      headers: headers('same-origin'),
    });
    expect(sameOrigin.status).toBe(200);
    const crossSite = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body,
      bare: true,
      headers: headers('cross-site'),
    });
    expect(crossSite.status).toBe(403);
    const neither = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body,
      bare: true,
      headers: headers(),
    });
    expect(neither.status).toBe(403);
  });
});

describe('cross-site requests, on every API route', () => {
  const readRoutes = [
    '/api/health',
    '/api/profiles',
    '/api/catalog',
    '/api/balance?profile=main',
    '/api/checks?profile=main',
  ];

  it.each([
    ['an Origin of another site', { origin: 'https://evil.example' }, 'Origin'],
    ['Origin: null', { origin: 'null' }, 'Origin'],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site'],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site'],
  ])('refuses a GET with %s (403), and calls no gateway', async (_label, headers, field) => {
    const gatewayCallsBefore = gateway.requests.length;
    for (const route of readRoutes) {
      const response = await rawRequest(bff, { path: route, headers });
      expect(response.status, route).toBe(403);
      expect(response.json(), route).toMatchObject({
        error: { stage: 'validation', field, message: expect.stringMatching(/cross-site/) },
      });
    }
    expect(gateway.requests).toHaveLength(gatewayCallsBefore);
  });

  it('refuses the spending attack an <img> tag sends', async () => {
    const gatewayCallsBefore = gateway.requests.length;
    // An `<img src>` GET carries no Origin, only Sec-Fetch-Site.
    const image = await rawRequest(bff, {
      path: '/api/balance?profile=main&probe=1&model=sim/echo',
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' },
    });
    expect(image.status).toBe(403);
    const fetched = await rawRequest(bff, {
      path: '/api/balance?profile=main&probe=1&model=sim/echo',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(fetched.status).toBe(403);
    const posted = await rawRequest(bff, {
      method: 'POST',
      path: '/api/balance/probe',
      body: JSON.stringify({ profile: 'main', model: 'sim/echo' }),
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(posted.status).toBe(403);
    expect(gateway.requests).toHaveLength(gatewayCallsBefore);
  });

  it.each([
    ['no Origin nor Sec-Fetch-Site (curl, scripts)', {}],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site: none (a typed address)', { 'sec-fetch-site': 'none' }],
  ])('answers a GET with %s', async (_label, headers) => {
    for (const route of readRoutes) {
      const response = await rawRequest(bff, { path: route, headers });
      expect(response.status, route).toBe(200);
    }
  });

  it('answers a GET with its own Origin', async () => {
    const response = await rawRequest(bff, {
      path: '/api/balance?profile=main',
      headers: { origin: `http://127.0.0.1:${bff.port}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(response.status).toBe(200);
  });

  it('leaves pages alone: a link from another site still opens the workbench', async () => {
    const response = await rawRequest(bff, {
      path: '/playground',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(response.status).toBe(200);
  });
});

describe('headers', () => {
  it('sends no CORS headers, even to a preflight', async () => {
    const preflight = await rawRequest(bff, {
      method: 'OPTIONS',
      path: '/api/chat',
      headers: {
        origin: 'http://attacker.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    const page = await rawRequest(bff, {
      path: '/api/health',
      headers: { origin: 'http://attacker.example' },
    });
    for (const response of [preflight, page]) {
      expect(
        Object.keys(response.headers).filter((name) => name.startsWith('access-control-')),
      ).toEqual([]);
    }
  });

  it('serves pages with a strict CSP and the other security headers', async () => {
    const response = await rawRequest(bff, { path: '/playground' });
    expect(response.status).toBe(200);
    expect(response.text).toContain('<title>Workbench</title>');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('relaxes the CSP only in dev mode (Vite needs its inline preamble and websocket)', () => {
    expect(contentSecurityPolicy(false)).not.toContain("unsafe-inline'; style");
    expect(contentSecurityPolicy(true)).toMatch(/script-src 'self' 'unsafe-inline'/);
    expect(contentSecurityPolicy(true)).toContain('ws:');
    expect(contentSecurityPolicy(false)).not.toContain('ws:');
  });

  it('serves built assets and falls back to index.html for SPA paths only', async () => {
    const asset = await rawRequest(bff, { path: '/assets/app.js' });
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const deepLink = await rawRequest(bff, { path: '/keys/anything' });
    expect(deepLink.text).toContain('<title>Workbench</title>');
    const unknownApi = await rawRequest(bff, { path: '/api/nothing-here' });
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.json()).toMatchObject({ error: { stage: 'validation' } });
  });
});

describe('dev mode (Vite as middleware)', () => {
  let devBff: TestBff;

  beforeAll(async () => {
    devBff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, dev: true });
  });

  afterAll(async () => {
    await devBff.close();
  });

  it('sends no CORS headers to another local origin, and still checks Host', async () => {
    const page = await rawRequest(devBff, {
      path: '/',
      headers: { origin: 'http://localhost:3000' },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    expect(Object.keys(page.headers).filter((name) => name.startsWith('access-control-'))).toEqual(
      [],
    );
    const rebound = await rawRequest(devBff, { path: '/', headers: { host: 'attacker.example' } });
    expect(rebound.status).toBe(403);
  });
});
