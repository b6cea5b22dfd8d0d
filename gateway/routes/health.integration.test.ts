/**
 * `/healthz`, `/readyz` and `/metrics` over real HTTP: they need no key, show none, answer GET
 * (and HEAD) only, and the metrics count what two gateways in one process each did, apart.
 */
import { ROUTE_NAMES } from '../operability/labels';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { closedPortUrl, fixtureJson, providersFileFor } from '../../testing/upstreams/upstream-kit';
import {
  chatBody,
  eventually,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

/** One sample of the Prometheus text: its labels exactly `labels`, or undefined. */
function sampleOf(text: string, name: string, labels: Record<string, string> = {}) {
  for (const line of text.split('\n')) {
    const found = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!found || found[1] !== name) continue;
    const sampleLabels = labelsOf(found[2] ?? '');
    const wanted = Object.entries(labels);
    if (
      wanted.length === Object.keys(sampleLabels).length &&
      wanted.every(([label, value]) => sampleLabels[label] === value)
    ) {
      return Number(found[3]);
    }
  }
  return undefined;
}

function labelsOf(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]),
  );
}

/** Requests counted on every route but `/metrics` (each scrape is a request too). */
function countedApartFromScrapes(text: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const found = /^gateway_requests_total\{(.*)\} (\S+)$/.exec(line);
    if (found && labelsOf(found[1]!).route !== 'metrics') total += Number(found[2]);
  }
  return total;
}

async function scrape(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** Polls the scrape until the sample has `value` (a request is counted once its socket closes). */
const sampleBecomes = (
  gateway: TestGateway,
  name: string,
  labels: Record<string, string>,
  value: number,
) =>
  eventually(async () =>
    (sampleOf(await scrape(gateway), name, labels) ?? 0) === value ? true : undefined,
  );

describe('with the simulated provider', () => {
  let gateway: TestGateway;
  let key: { id: string; key: string };

  beforeAll(async () => {
    gateway = await startTestGateway();
    key = await gateway.createKey({ kind: 'account', limitUsd: 10 });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  describe('GET /healthz', () => {
    it('answers 200 ok with no key, and HEAD too', async () => {
      const response = await fetch(`${gateway.url}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await fetch(`${gateway.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
    });

    it('stays ok while the store does not answer: only the process is asked', async () => {
      const store = gateway.gateway.parts.store;
      const ping = store.ping;
      store.ping = () => Promise.reject(new Error('down'));
      try {
        expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      } finally {
        store.ping = ping;
      }
    });

    it.each(['/healthz', '/readyz', '/metrics'])('refuses POST on %s with 405', async (path) => {
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  describe('GET /readyz', () => {
    it('answers 200 when the store answers', async () => {
      const response = await fetch(`${gateway.url}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        status: 'ok',
        checks: [{ name: 'store', status: 'ok' }],
      });
      expect((await fetch(`${gateway.url}/readyz`, { method: 'HEAD' })).status).toBe(200);
    });

    it('answers 503 naming the store when its ping fails, without the error text', async () => {
      const store = gateway.gateway.parts.store;
      const ping = store.ping;
      const secret = `postgres://gateway:${crypto.randomUUID()}@db.internal/gateway`;
      store.ping = () =>
        Promise.reject(
          Object.assign(new Error(`cannot reach ${secret}`), { code: 'ECONNREFUSED' }),
        );
      try {
        const response = await fetch(`${gateway.url}/readyz`);
        expect(response.status).toBe(503);
        const text = await response.text();
        expect(JSON.parse(text)).toEqual({
          status: 'unavailable',
          checks: [{ name: 'store', status: 'failed', reason: 'failed (ECONNREFUSED)' }],
        });
        expect(text).not.toContain(secret);
      } finally {
        store.ping = ping;
      }
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    });

    it('answers 503 within about a second when the store hangs', async () => {
      const store = gateway.gateway.parts.store;
      const ping = store.ping;
      store.ping = () => new Promise(() => undefined);
      try {
        const began = performance.now();
        const response = await fetch(`${gateway.url}/readyz`);
        expect(performance.now() - began).toBeLessThan(2_500);
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({
          checks: [{ name: 'store', status: 'failed', reason: 'no answer within 1000 ms' }],
        });
      } finally {
        store.ping = ping;
      }
    });

    it('asks the readiness checks others add, and names the one that fails', async () => {
      const parts = gateway.gateway.parts;
      parts.readiness = [
        { name: 'redis', ping: () => Promise.reject(new Error(`auth failed for ${key.key}`)) },
      ];
      try {
        const response = await fetch(`${gateway.url}/readyz`);
        expect(response.status).toBe(503);
        const text = await response.text();
        expect(JSON.parse(text)).toEqual({
          status: 'unavailable',
          checks: [
            { name: 'store', status: 'ok' },
            { name: 'redis', status: 'failed', reason: 'failed' },
          ],
        });
        expect(text).not.toContain(key.key);
      } finally {
        parts.readiness = undefined;
      }
    });
  });

  describe('GET /metrics', () => {
    it('counts a chat completion by route, status and form, and times it', async () => {
      const labels = { route: 'chat_completions', status: '200', form: 'chat_completions' };
      const before = sampleOf(await scrape(gateway), 'gateway_requests_total', labels) ?? 0;
      const timed = { route: 'chat_completions', form: 'chat_completions' };
      const timedBefore =
        sampleOf(await scrape(gateway), 'gateway_request_duration_seconds_count', timed) ?? 0;

      const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
        key: key.key,
      });
      expect(response.status).toBe(200);
      await response.text();

      await sampleBecomes(gateway, 'gateway_requests_total', labels, before + 1);
      const text = await scrape(gateway);
      expect(sampleOf(text, 'gateway_request_duration_seconds_count', timed)).toBe(timedBefore + 1);
    });

    it('counts a refusal under its own status', async () => {
      const labels = { route: 'chat_completions', status: '401', form: 'chat_completions' };
      const before = sampleOf(await scrape(gateway), 'gateway_requests_total', labels) ?? 0;
      const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody());
      expect(response.status).toBe(401);
      await response.text();
      await sampleBecomes(gateway, 'gateway_requests_total', labels, before + 1);
    });

    it.each([
      ['/v1/responses', 'responses', { model: 'sim/chat-standard', input: 'Hello' }],
      ['/v1/embeddings', 'embeddings', { model: 'sim/embed-small', input: 'Hello' }],
    ])('counts a request to %s under route %s, its own form', async (path, route, body) => {
      const labels = { route, status: '401', form: route };
      const before = sampleOf(await scrape(gateway), 'gateway_requests_total', labels) ?? 0;
      const response = await postJson(`${gateway.url}${path}`, body);
      expect(response.status).toBe(401);
      await response.text();
      await sampleBecomes(gateway, 'gateway_requests_total', labels, before + 1);
    });

    it('shows the reservations gauge, the settlement lag and the process metrics', async () => {
      const text = await scrape(gateway);
      expect(sampleOf(text, 'gateway_reservations_held')).toBe(0);
      expect(sampleOf(text, 'gateway_settlement_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sampleOf(text, 'gateway_process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(text).toMatch(/^gateway_nodejs_eventloop_lag_seconds \S+$/m);
    });

    it("keeps each gateway's counts in its own registry", async () => {
      const other = await startTestGateway();
      try {
        const labels = { route: 'models', status: '200', form: 'none' };
        const mine = sampleOf(await scrape(gateway), 'gateway_requests_total', labels) ?? 0;
        await (await fetch(`${other.url}/v1/models`)).text();
        await sampleBecomes(other, 'gateway_requests_total', labels, 1);
        expect(sampleOf(await scrape(gateway), 'gateway_requests_total', labels) ?? 0).toBe(mine);
      } finally {
        await other.stop();
      }
    });

    it('never shows a key sent in a path or a query, nor its digest', async () => {
      const { key: secret, id } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      const digest = (await gateway.gateway.admin.find(id))!.digest;
      const before = countedApartFromScrapes(await scrape(gateway));
      const paths = [
        `/v1/${secret}`,
        `/${secret}`,
        `/v1/models?api_key=${secret}`,
        `/v1/models/${secret}/x/endpoints`,
        `/v1beta/models/${secret}:generateContent`,
        `/v1/keys/${secret}`,
        `/healthz?key=${secret}`,
        `/readyz?token=${secret}`,
        `/metrics?api_key=${secret}`,
      ];
      for (const path of paths) {
        const response = await fetch(`${gateway.url}${path}`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        await response.text();
      }
      const chat = await postJson(`${gateway.url}/v1/chat/completions?key=${secret}`, chatBody(), {
        key: secret,
      });
      await chat.text();
      // Every request is counted once its socket closes; wait for all of them.
      await eventually(async () =>
        countedApartFromScrapes(await scrape(gateway)) >= before + paths.length ? true : undefined,
      );

      const text = await scrape(gateway);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(3, 20));
      expect(text).not.toContain(digest);
      const routes = new Set<string>(ROUTE_NAMES);
      for (const match of text.matchAll(/route="([^"]*)"/g)) expect(routes).toContain(match[1]);
      expect(
        sampleOf(text, 'gateway_requests_total', { route: 'other', status: '404', form: 'none' }),
      ).toBeGreaterThanOrEqual(2);
    });
  });
});

describe('with upstream providers', () => {
  let gateway: TestGateway;
  let key: string;
  let flaky: FakeUpstream;
  let held: FakeUpstream;

  beforeAll(async () => {
    flaky = await startFakeUpstream();
    held = await startFakeUpstream();
    const models = (id: string) => [
      {
        id: `ops/${id}`,
        upstreamModel: `${id}-upstream`,
        prompt: '0.000001',
        completion: '0.000002',
      },
    ];
    const setup = providersFileFor([
      {
        id: 'flaky',
        kind: 'openai-compatible',
        url: flaky.url,
        models: models('flaky'),
        retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 5 },
        breaker: { failure_threshold: 1_000 },
      },
      {
        id: 'held',
        kind: 'openai-compatible',
        url: held.url,
        models: models('held'),
        retry: { max_attempts: 1 },
      },
      {
        id: 'refused',
        kind: 'openai-compatible',
        url: await closedPortUrl(),
        models: models('refused'),
        retry: { max_attempts: 1 },
        breaker: { failure_threshold: 1_000 },
      },
    ]);
    gateway = await startTestGateway({ providers: setup.providers, settleIntervalMs: 600_000 });
    key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  });
  afterAll(async () => {
    await gateway?.stop();
    await flaky?.close();
    await held?.close();
  });

  const ask = (model: string) =>
    postJson(`${gateway.url}/v1/chat/completions`, chatBody({ model }), { key });

  it('counts upstream attempts by provider and outcome', async () => {
    flaky.reply(
      { status: 503, body: { error: { message: 'overloaded' } } },
      { body: fixtureJson('openai-compatible', 'openai-text-response.json') },
    );
    const response = await ask('ops/flaky');
    expect(response.status, await response.text()).toBe(200);
    const refused = await ask('ops/refused');
    expect(refused.status).toBeGreaterThanOrEqual(500);
    await refused.text();

    const text = await scrape(gateway);
    expect(
      sampleOf(text, 'gateway_upstream_attempts_total', { provider: 'flaky', outcome: '5xx' }),
    ).toBe(1);
    expect(
      sampleOf(text, 'gateway_upstream_attempts_total', { provider: 'flaky', outcome: '2xx' }),
    ).toBe(1);
    expect(
      sampleOf(text, 'gateway_upstream_attempts_total', {
        provider: 'refused',
        outcome: 'connect',
      }),
    ).toBe(1);
  });

  it('shows the reservations a running request holds, and none once it ends', async () => {
    let release!: () => void;
    held.reply({
      body: fixtureJson('openai-compatible', 'openai-text-response.json'),
      holdUntil: new Promise<void>((resolve) => (release = resolve)),
    });
    const answer = ask('ops/held');
    await eventually(async () =>
      sampleOf(await scrape(gateway), 'gateway_reservations_held') === 1 ? true : undefined,
    );
    release();
    const response = await answer;
    expect(response.status).toBe(200);
    await response.text();
    await eventually(async () =>
      sampleOf(await scrape(gateway), 'gateway_reservations_held') === 0 ? true : undefined,
    );
  });

  it('measures the settlement lag from the last settlement that succeeded', async () => {
    // Settlement runs every ten minutes here: the lag grows until it is run by hand.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      sampleOf(await scrape(gateway), 'gateway_settlement_lag_seconds'),
    ).toBeGreaterThanOrEqual(0.3);
    await gateway.gateway.settlement.settleNow();
    expect(sampleOf(await scrape(gateway), 'gateway_settlement_lag_seconds')).toBeLessThan(0.3);
  });
});
