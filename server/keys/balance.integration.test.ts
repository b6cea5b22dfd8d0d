import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  balanceViewSchema,
  profilesSchema,
  validateKeyResultSchema,
  validationEstimateSchema,
} from '../../contract/workbench-api';
import { deriveKeyState } from './balance';
import {
  balanceBody,
  completionBody,
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
} from '../test-support/fake-gateway';
import {
  fakeKey,
  openRequest,
  postJson,
  rawRequest,
  startTestBff,
  type TestBff,
} from '../test-support/harness';

let gateway: FakeGateway;
let bff: TestBff;
let balanceOverrides: Record<string, unknown>;
let inferenceStatus: number;
/** The gateway's `GET /v1/key` answer; null answers 404, as a gateway without the route. */
let keyStatus: Record<string, unknown> | null;

function keyStatusBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    object: 'key',
    id: 'key_child',
    key: 'sk-abcd…wxyz',
    name: 'child',
    identity: 'allocated_child',
    state: 'active',
    can_spend: true,
    blocked_by: null,
    expires_at: null,
    ...overrides,
  };
}

beforeAll(async () => {
  gateway = await startFakeGateway();
  bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    profiles: { main: fakeKey(), other: fakeKey() },
  });
});

beforeEach(() => {
  balanceOverrides = {};
  inferenceStatus = 200;
  keyStatus = null;
  gateway.requests.length = 0;
  gateway.setHandler((request, response) => {
    const path = request.url.split('?')[0];
    if (path === '/v1/balance') return sendJson(response, 200, balanceBody(balanceOverrides));
    if (path === '/v1/key' && keyStatus) return sendJson(response, 200, keyStatus);
    if (path === '/v1/chat/completions' && inferenceStatus !== 200) {
      return sendJson(response, inferenceStatus, {
        error: 'Key refused',
        stage: 'admission',
        type: 'key_blocked',
      });
    }
    if (path === '/v1/chat/completions') return sendJson(response, 200, completionBody());
    defaultHandler(request, response);
  });
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

describe('key state', () => {
  it.each([
    [{}, 'active'],
    [{ expired: true }, 'expired'],
    [{ disabled: true }, 'disabled'],
    [{ disabled: true, expired: true }, 'disabled'],
    [{ remaining_usd: 0 }, 'depleted'],
  ] as const)('balance %j is %s', async (overrides, state) => {
    balanceOverrides = overrides;
    const response = await rawRequest(bff, { path: '/api/balance?profile=main' });
    expect(response.status).toBe(200);
    const view = balanceViewSchema.parse(response.json());
    expect(view.state).toBe(state);
    expect(view.guidance.length).toBeGreaterThan(20);
    expect(view.probe).toBeUndefined();
    expect(deriveKeyState(view.balance)).toBe(state);
  });

  it('makes no inference call on the GET: the balance and the key status only', async () => {
    await rawRequest(bff, { path: '/api/balance?profile=main' });
    expect(gateway.requests.map((request) => request.url).sort()).toEqual([
      '/v1/balance',
      '/v1/key',
    ]);
  });

  it('refuses ?probe=1 on the GET with a 400 naming the POST route, and spends nothing', async () => {
    // What a cross-site `<img src>` could send: it must not run inference.
    const response = await rawRequest(bff, {
      path: '/api/balance?profile=main&probe=1&model=sim/echo',
    });
    expect(response.status).toBe(400);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error).toMatchObject({ stage: 'validation', field: 'probe' });
    expect(error.message).toContain('POST /api/balance/probe');
    expect(gateway.requests).toEqual([]);
  });

  it('reports blocked when the probe answers 402 while the balance looks active', async () => {
    inferenceStatus = 402;
    const view = balanceViewSchema.parse(
      (await postJson(bff, '/api/balance/probe', { profile: 'main' })).json(),
    );
    expect(view.state).toBe('blocked');
    expect(view.guidance).toMatch(/parent/);
    expect(view.probe).toMatchObject({ model: 'sim/echo:free', upstream_status: 402 });
    const probeCall = gateway.requests.find((request) => request.url === '/v1/chat/completions');
    expect(JSON.parse(probeCall!.body)).toMatchObject({ max_tokens: 1, model: 'sim/echo:free' });
  });

  it('stays active when the probe succeeds, and reports its cost', async () => {
    const view = balanceViewSchema.parse(
      (await postJson(bff, '/api/balance/probe', { profile: 'main', model: 'sim/echo' })).json(),
    );
    expect(view.state).toBe('active');
    expect(view.probe).toMatchObject({
      model: 'sim/echo',
      upstream_status: 200,
      cost_usd: 0.000012,
    });
  });

  it('does not probe a key whose balance already explains a refusal', async () => {
    balanceOverrides = { disabled: true };
    const view = balanceViewSchema.parse(
      (await postJson(bff, '/api/balance/probe', { profile: 'main' })).json(),
    );
    expect(view.state).toBe('disabled');
    expect(view.probe).toBeUndefined();
    expect(gateway.requests.some((request) => request.url === '/v1/chat/completions')).toBe(false);
  });

  it('a probe model the catalog does not have is a 400 naming model, with no inference call', async () => {
    const response = await postJson(bff, '/api/balance/probe', {
      profile: 'main',
      model: 'nope/nothing',
    });
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ field: 'model' });
    expect(gateway.requests.some((request) => request.url === '/v1/chat/completions')).toBe(false);
  });

  it('aborts the probe call when the browser goes away', async () => {
    gateway.setHandler((request, response) => {
      const path = request.url.split('?')[0];
      if (path === '/v1/balance') return sendJson(response, 200, balanceBody());
      if (path === '/v1/chat/completions') return; // holds the answer
      defaultHandler(request, response);
    });
    const request = openRequest(bff, 'POST', '/api/balance/probe', {
      profile: 'main',
      model: 'sim/echo',
    });
    await expect
      .poll(() => gateway.requests.some((sent) => sent.url === '/v1/chat/completions'))
      .toBe(true);
    request.destroy();
    // Without the abort the probe would wait for the 120 s first-byte timeout.
    await gateway.requests.find((sent) => sent.url === '/v1/chat/completions')!.clientGone;
  });

  it('a 401 from the gateway is an authentication error with the 401 advice', async () => {
    gateway.setHandler((_request, response) =>
      sendJson(response, 401, { error: 'missing key', stage: 'authentication' }),
    );
    const response = await rawRequest(bff, { path: '/api/balance?profile=main' });
    expect(response.status).toBe(401);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'authentication',
      upstream_status: 401,
    });
    expect(apiErrorSchema.parse(response.json()).error.advice).toMatch(/begins with sk-/);
  });

  it('a balance without the balance shape is a gateway error', async () => {
    gateway.setHandler((_request, response) => sendJson(response, 200, { object: 'balance' }));
    const response = await rawRequest(bff, { path: '/api/balance?profile=main' });
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('gateway');
  });
});

describe('key state from the gateway’s GET /v1/key', () => {
  it.each([
    ['parent_disabled', /parent key is disabled.*keys enable/],
    ['parent_expired', /parent key has expired.*--expires-at/],
    ['parent_revoked', /was revoked.*Ask for a new key/],
  ])(
    'a child whose parent blocks it (%s) is blocked at once, with the reason and what to do',
    async (reason, guidance) => {
      balanceOverrides = { identity: 'allocated_child' };
      keyStatus = keyStatusBody({
        state: 'blocked',
        can_spend: false,
        blocked_by: { reason, message: 'The gateway’s own words.' },
      });
      const view = balanceViewSchema.parse(
        (await rawRequest(bff, { path: '/api/balance?profile=main' })).json(),
      );
      expect(view.state).toBe('blocked');
      expect(view.blocked_by?.reason).toBe(reason);
      expect(view.blocked_by?.summary).toMatch(/^its parent key /);
      expect(view.guidance).toMatch(guidance);
      // The balance object itself is passed on exactly as the gateway gives it.
      expect(view.balance).toEqual(balanceBody({ identity: 'allocated_child' }));
      // No paid probe was needed.
      expect(gateway.requests.some((request) => request.url === '/v1/chat/completions')).toBe(
        false,
      );
    },
  );

  it('a shared child whose parent is used up is depleted, saying it is the parent', async () => {
    balanceOverrides = { identity: 'shared_child', remaining_usd: 0 };
    keyStatus = keyStatusBody({
      identity: 'shared_child',
      state: 'depleted',
      can_spend: false,
      blocked_by: { reason: 'parent_depleted', message: '…' },
    });
    const view = balanceViewSchema.parse(
      (await rawRequest(bff, { path: '/api/balance?profile=main' })).json(),
    );
    expect(view).toMatchObject({ state: 'depleted', blocked_by: { reason: 'parent_depleted' } });
    expect(view.guidance).toMatch(/parent key's limit/);
  });

  it('the gateway’s state wins over the balance flags', async () => {
    keyStatus = keyStatusBody({ state: 'expired', can_spend: false });
    const view = balanceViewSchema.parse(
      (await rawRequest(bff, { path: '/api/balance?profile=main' })).json(),
    );
    expect(view).toMatchObject({ state: 'expired', blocked_by: null });
  });

  it('a gateway without GET /v1/key leaves the state to the balance', async () => {
    balanceOverrides = { disabled: true };
    const view = balanceViewSchema.parse(
      (await rawRequest(bff, { path: '/api/balance?profile=main' })).json(),
    );
    expect(view).toMatchObject({ state: 'disabled', blocked_by: null });
  });

  it('key validation names the parent that blocks a refused key', async () => {
    inferenceStatus = 402;
    keyStatus = keyStatusBody({
      state: 'blocked',
      can_spend: false,
      blocked_by: { reason: 'parent_disabled', message: '…' },
    });
    const result = validateKeyResultSchema.parse(
      (await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' })).json(),
    );
    expect(result).toMatchObject({ valid: false, state: 'blocked' });
    expect(result.message).toMatch(/its parent key is disabled/);
  });
});

describe('profiles', () => {
  it('lists names, masked keys and identities from the balance call, remembered per key', async () => {
    balanceOverrides = { identity: 'allocated_child' };
    const { profiles } = profilesSchema.parse(
      (await rawRequest(bff, { path: '/api/profiles' })).json(),
    );
    expect(profiles.map((profile) => profile.name)).toEqual(['main', 'other']);
    for (const profile of profiles) expect(profile.masked_key).toMatch(/^sk-.{4}….{4}$/);
    // `main` was looked up as an account by the earlier balance calls; only `other` was asked now.
    expect(profiles.map((profile) => profile.identity)).toEqual(['account', 'allocated_child']);
    expect(gateway.requests.filter((request) => request.url === '/v1/balance')).toHaveLength(1);
  });

  it('leaves the identity null when the gateway cannot tell', async () => {
    gateway.setHandler((_request, response) => sendJson(response, 401, { error: 'unknown key' }));
    const fresh = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { lost: fakeKey() },
    });
    try {
      const { profiles } = profilesSchema.parse(
        (await rawRequest(fresh, { path: '/api/profiles' })).json(),
      );
      expect(profiles).toEqual([
        { name: 'lost', masked_key: expect.stringMatching(/^sk-/), identity: null },
      ]);
    } finally {
      await fresh.close();
    }
  });
});

describe('key validation', () => {
  it('estimates the cost from catalog prices before running', async () => {
    const estimate = validationEstimateSchema.parse(
      (
        await rawRequest(bff, {
          path: '/api/validate-key/estimate?profile=main&model=sim/echo&max_tokens=4',
        })
      ).json(),
    );
    // prompt estimate (ceil(29 / 4) + 4 + 3 = 15 tokens) × 0.000001 + 4 × 0.000002
    expect(estimate).toEqual({
      model: 'sim/echo',
      max_tokens: 4,
      estimated_cost_usd: 15 * 0.000001 + 4 * 0.000002,
    });
    expect(gateway.requests.every((request) => request.url === '/v1/models')).toBe(true);
  });

  it('runs a minimal call and reports valid with the cost', async () => {
    const result = validateKeyResultSchema.parse(
      (await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' })).json(),
    );
    expect(result).toMatchObject({ valid: true, state: 'active', cost_usd: 0.000012 });
    const call = gateway.requests.find((request) => request.url === '/v1/chat/completions');
    expect(JSON.parse(call!.body)).toMatchObject({ model: 'sim/echo', max_tokens: 1 });
  });

  it('explains a 402 with the state from the balance', async () => {
    inferenceStatus = 402;
    balanceOverrides = { remaining_usd: 0 };
    const result = validateKeyResultSchema.parse(
      (await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' })).json(),
    );
    expect(result).toMatchObject({ valid: false, state: 'depleted' });
    expect(result.meta.upstream_status).toBe(402);
  });

  it.each([
    // Rotate refuses an expired key, so the advice is to extend its expiry, where it can be done.
    ['allocated_child', { expired: true }, /Set limit & expiry/, /replacement|rotate/i],
    ['account', { expired: true }, /cannot change an account key.*keys set ID/, /Set limit/],
    // An account key cannot be enabled from the workbench; a child can, with Enable.
    [
      'account',
      { disabled: true },
      /cannot enable an account key.*keys enable ID/,
      /key management/,
    ],
    [
      'shared_child',
      { disabled: true },
      /Enable in the Child keys table/,
      /command line|key management/,
    ],
  ] as const)(
    'advises a refused %s key (%j) with what the workbench can do',
    async (identity, overrides, says, saysNot) => {
      inferenceStatus = 402;
      balanceOverrides = { identity, ...overrides };
      const result = validateKeyResultSchema.parse(
        (await postJson(bff, '/api/validate-key', { profile: 'other', model: 'sim/echo' })).json(),
      );
      expect(result.valid).toBe(false);
      expect(result.message).toMatch(says);
      expect(result.message).not.toMatch(saysNot);
    },
  );

  it('a browser leaving during the balance lookup of a 402 is no error: nothing logged, call aborted', async () => {
    gateway.setHandler((request, response) => {
      const path = request.url.split('?')[0];
      if (path === '/v1/chat/completions') return sendJson(response, 402, { error: 'refused' });
      if (path === '/v1/balance') return; // holds the answer
      defaultHandler(request, response);
    });
    await rawRequest(bff, { path: '/api/catalog' });
    const request = openRequest(bff, 'POST', '/api/validate-key', {
      profile: 'main',
      model: 'sim/echo',
    });
    await expect.poll(() => gateway.requests.some((sent) => sent.url === '/v1/balance')).toBe(true);
    request.destroy();
    await gateway.requests.find((sent) => sent.url === '/v1/balance')!.clientGone;
    // The abort rejected the BFF's call before the gateway saw the socket close; one more
    // round trip lets anything the error handler would log reach the log.
    await rawRequest(bff, { path: '/api/health' });
    expect(bff.logLines.filter((line) => line.includes('"msg":"unexpected error"'))).toEqual([]);
  });

  it('reports a 401 as not valid with the 401 advice', async () => {
    inferenceStatus = 401;
    const result = validateKeyResultSchema.parse(
      (await postJson(bff, '/api/validate-key', { profile: 'main', model: 'sim/echo' })).json(),
    );
    expect(result).toMatchObject({ valid: false, state: null });
    expect(result.message).toMatch(/begins with sk-/);
  });
});
