/**
 * A provider that fails mid-answer: the client gets a 502 (or an error event mid-stream) in the
 * form's shape with no internals, the delivered tokens are charged and recorded as ended early,
 * and the reservation is released so the key can spend its whole budget again.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { GenerationWriter } from '../billing/generation-writer';
import { InflightRows } from '../billing/inflight-rows';
import type { Reservation } from '../billing/budget';
import { MemoryBudget } from '../billing/memory-budget';
import type { GatewayError } from '../errors';
import { Catalog } from '../catalog/catalog';
import { KeyAdmin } from '../keys/key-admin';
import { createKeyDigester } from '../keys/key-material';
import { KeyRegistry } from '../keys/key-registry';
import { createSimulatedProvider } from '../providers/simulated/simulated-provider';
import { openSqliteStore } from '../store/sqlite-store';
import { defaultBreaker, defaultRetry } from '../providers/upstream/provider-config';
import { CircuitBreaker } from './circuit-breaker';
import { InferencePipeline } from './inference-pipeline';
import type {
  CanonicalEvent,
  CanonicalRequest,
  PipelineEvent,
  PricedFinish,
} from '../canonical/model';
import type { GatewayStore, KeyRow } from '../store/store';
import { createLogger } from '../logger';
import type { Provider } from '../providers/provider';
import { simulatedModels } from '../providers/simulated/models';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  readSseData,
  capturingLogger,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';
import { canonicalRequest } from '../../testing/upstreams/canonical';
import { RequestTiming } from '../shared/request-timing';

const DELIVERED_BEFORE_FAILURE = 3;

/** Serves the simulated catalog but breaks after a few tokens, as a dropped upstream would. */
const failingProvider: Provider = {
  id: 'simulated',
  kind: 'simulated',
  async *stream() {
    for (let index = 0; index < DELIVERED_BEFORE_FAILURE; index += 1) {
      yield { type: 'text-delta', text: ` word${index}` } satisfies CanonicalEvent;
    }
    throw new Error('upstream connection reset at /internal/secret/path');
  },
};

let gateway: TestGateway;
const log = capturingLogger();

beforeAll(async () => {
  gateway = await startTestGateway({}, { providers: [failingProvider], logger: log.logger });
});
afterAll(() => gateway.stop());

const model = simulatedModels.find((entry) => entry.id === 'sim/chat-standard')!;

async function generation(key: string, id: string) {
  const response = await fetch(`${gateway.url}/v1/generation?id=${id}`, { headers: bearer(key) });
  return (await response.json()) as {
    outcome: string;
    completion_tokens: number;
    prompt_tokens: number;
    cost_usd: number;
    finish_reason: string | null;
  };
}

describe('a provider that fails mid-answer', () => {
  it('answers a plain request with 502 in the gateway shape, charging only what was delivered', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key });
    expect(response.status).toBe(502);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'provider_error',
      stage: 'provider',
      request_id: response.headers.get('cf-ray'),
    });
    expect(JSON.stringify(body)).not.toContain('/internal/secret/path');

    const record = await generation(key, response.headers.get('cf-ray')!);
    expect(record.outcome).toBe('ended_early');
    expect(record.finish_reason).toBe('error');
    expect(record.completion_tokens).toBe(DELIVERED_BEFORE_FAILURE);
    const expectedNanos =
      record.prompt_tokens * model.promptNanos + DELIVERED_BEFORE_FAILURE * model.completionNanos;
    expect(Math.round(record.cost_usd * 1e9)).toBe(expectedNanos);
    // The cause stays in the server's log, never in the answer.
    expect(log.text()).toContain('upstream connection reset');
  });

  it('ends a stream with an error event and releases the reservation', async () => {
    // A budget of exactly one worst-case request: a leaked reservation would refuse the next one.
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 0.0001 });
    const request = chatBody({ stream: true, max_tokens: 20 });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, request, { key });
    expect(response.status).toBe(200);
    const events = await readSseData(response);
    const last = JSON.parse(events.at(-1)!) as Record<string, unknown>;
    // Not a clean-looking end: the last chunk finishes with `error` and carries the error.
    expect(last).toMatchObject({
      choices: [{ finish_reason: 'error' }],
      error: { type: 'provider_error', stage: 'provider' },
    });
    expect(events).not.toContain('[DONE]');

    const record = await eventually(async () => {
      const found = await generation(key, response.headers.get('cf-ray')!);
      return found.outcome ? found : undefined;
    });
    expect(record.outcome).toBe('ended_early');
    const second = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody({ max_tokens: 20 }),
      { key },
    );
    // Refused only if the first reservation had leaked (the delivered cost is far below it).
    expect(second.status).toBe(502);
  });
});

/** A pipeline over an in-memory store; `wrap` can swap pieces of the store the pipeline sees. */
async function setUp(
  limitUsd: number,
  wrap: (store: GatewayStore) => GatewayStore = (store) => store,
) {
  const store = openSqliteStore(':memory:');
  const digest = createKeyDigester('test-pepper-that-is-long-enough');
  const issued = await new KeyAdmin(store, digest).create({ kind: 'account', limitUsd });
  const registry = await KeyRegistry.open(store, digest);
  const rows = new InflightRows(store, 'instance-test', 30_000, createLogger('silent'));
  const budget = new MemoryBudget(new Map(), rows);
  const pipeline = new InferencePipeline({
    catalog: new Catalog(simulatedModels),
    registry,
    budget,
    rows,
    writer: new GenerationWriter(wrap(store)),
    providers: new Map([
      [
        'simulated',
        {
          provider: createSimulatedProvider({ tokensPerSecond: 0 }),
          retry: defaultRetry,
          breaker: new CircuitBreaker(defaultBreaker),
        },
      ],
    ]),
    logger: createLogger('silent'),
  });
  const close = async () => {
    await rows.flush();
    await store.close();
  };
  return { store, registry, budget, pipeline, issued, close };
}
const request = (overrides: Partial<CanonicalRequest> = {}) =>
  canonicalRequest({ temperature: 0, ...overrides });
const input = (key: KeyRow, canonical: CanonicalRequest, traceId: string) => ({
  key,
  request: canonical,
  form: 'chat_completions' as const,
  traceId,
  signal: new AbortController().signal,
  timing: new RequestTiming(),
});
const drain = async (events: AsyncIterable<PipelineEvent>) => {
  const seen: PipelineEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
};

describe('a generation record that cannot be written', () => {
  it('fails the request without delivering the end, and still frees the reservation', async () => {
    const { store, registry, budget, pipeline, issued, close } = await setUp(1, (real) => ({
      ...real,
      insertGenerations: () => Promise.reject(new Error('disk full')),
    }));
    const key = (await registry.findByKey(issued.key))!;
    const run = await pipeline.start(input(key, request(), '0123456789abcdef-TST'));
    expect(await budget.reservedFor(key.id)).toBeGreaterThan(0);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of run.events) seen.push(event.type);
      })(),
    ).rejects.toThrow('disk full');
    // The answer's end was never delivered: it could not be recorded.
    expect(seen).not.toContain('finish');
    expect(await budget.reservedFor(key.id)).toBe(0);
    // Nor is the request's in-flight row left behind, to be charged again later.
    await eventually(async () => ((await store.listInflight()).length === 0 ? true : undefined));
    await close();
  });
});

describe('admission is checked against the key as it is now', () => {
  it('refuses a request whose key row went stale (reloaded, then settled) while its body arrived', async () => {
    const { store, registry, budget, pipeline, issued, close } = await setUp(0.0001);
    // The row as the route saw it when the request arrived (the registry's own row is updated in
    // place, so a copy stands for one that went stale).
    const authenticated = { ...(await registry.findByKey(issued.key))! };
    // One request spends ~29k nanos of the 100k limit; it is pending.
    await drain(
      (await pipeline.start(input(authenticated, request(), '0000000000000001-TST'))).events,
    );
    // Meanwhile another process commits (the registry reloads its rows) and settlement runs.
    await registry.reload();
    const moved = await store.settlePending(0);
    await registry.reload();
    budget.settled(moved);
    // 5k prompt + 25 × 3k = 80k: affordable only if the settled 29k is forgotten.
    await expect(
      pipeline.start(input(authenticated, request({ maxTokens: 25 }), '0000000000000002-TST')),
    ).rejects.toMatchObject({ status: 402 });
    await close();
  });

  it('never charges more output than it reserved, even for a tool call longer than max_tokens', async () => {
    const { store, pipeline, registry, issued, close } = await setUp(1);
    const key = (await registry.findByKey(issued.key))!;
    const properties = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`field${index}`, { type: 'string' }]),
    );
    const run = await pipeline.start(
      input(
        key,
        request({
          maxTokens: 2,
          tools: [{ name: 'lookup', parameters: { type: 'object', properties } }],
          toolChoice: 'required',
        }),
        '0000000000000003-TST',
      ),
    );
    const finish = (await drain(run.events)).at(-1) as PricedFinish;
    expect(finish.usage.completionTokens).toBeLessThanOrEqual(2);
    const record = (await store.getGeneration('0000000000000003-TST'))!;
    expect(record.completionTokens).toBeLessThanOrEqual(2);
    expect(record.costNanos).toBeLessThanOrEqual(
      run.promptTokens * model.promptNanos + 2 * model.completionNanos,
    );
    await close();
  });
});

describe('a stream still open when the gateway shuts down', () => {
  it('is recorded as ended early and charged before the database closes', async () => {
    const running = await startTestGateway({ simulatedTokensPerSecond: 20 });
    const { key } = await running.createKey({ kind: 'account', limitUsd: 1 });
    const response = await postJson(
      `${running.url}/v1/chat/completions`,
      chatBody({
        stream: true,
        max_tokens: 400,
        messages: [{ role: 'user', content: 'Write 300 words.' }],
      }),
      { key },
    );
    const reader = response.body!.getReader();
    void (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Waits for the grace period, then cuts the stream and closes the database.
    await running.close();
    const database = new Database(running.dbPath, { readonly: true });
    const rows = database
      .prepare('SELECT outcome, completion_tokens, settled FROM generations')
      .all();
    const consumed = database.prepare('SELECT consumption_nanos FROM keys').get() as {
      consumption_nanos: number;
    };
    database.close();
    fs.rmSync(running.folder, { recursive: true, force: true });
    expect(rows).toEqual([
      { outcome: 'ended_early', completion_tokens: expect.any(Number), settled: 1 },
    ]);
    expect(consumed.consumption_nanos).toBeGreaterThan(0);
  });
});

describe('a stream that outlives its lease in the embedded gateway (it was slow, not dead)', () => {
  it('is closed by nobody, since one process alone owns its file, and is charged in full', async () => {
    const warnings = capturingLogger('warn');
    const running = await startTestGateway(
      { simulatedTokensPerSecond: 20, leaseMs: 1_000, settleIntervalMs: 100 },
      { logger: warnings.logger },
    );
    try {
      const { store, instanceId } = running.gateway.parts;
      const created = await running.createKey({ kind: 'account', limitUsd: 1 });
      const response = await postJson(
        `${running.url}/v1/chat/completions`,
        chatBody({
          stream: true,
          max_tokens: 40,
          messages: [{ role: 'user', content: 'Write 300 words.' }],
        }),
        { key: created.key },
      );
      const traceId = response.headers.get('cf-ray')!;
      const reading = readSseData(response);
      await eventually(async () => ((await store.listInflight()).length > 0 ? true : undefined));
      // As if the process had stalled past its lease, again and again while the stream runs: a
      // reclaim looking now would find the row's lease ended.
      const stalled = Date.now() + 1_200;
      while (Date.now() < stalled && (await store.listInflight()).length > 0) {
        await store.checkpointInflight(instanceId, 1, []);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await reading;
      expect(warnings.text()).not.toContain('closed in-flight requests');

      const record = (await store.getGeneration(traceId))!;
      expect(record).toMatchObject({ outcome: 'completed', completionTokens: 40 });
      expect(record.costNanos).toBe(
        record.promptTokens * model.promptNanos + 40 * model.completionNanos,
      );
      // The key is charged the record's cost once, and settles as that cost: all of it in
      // consumption, nothing left pending, here or in the budget's own count.
      const budget = running.gateway.parts.budget as MemoryBudget;
      const settled = await eventually(async () => {
        const now = (await store.fundingFigures(created.id))!;
        return budget.pendingFor(created.id) === 0 && now.pendingNanos === 0 ? now : undefined;
      });
      expect(settled.consumptionNanos).toBe(record.costNanos);
    } finally {
      await running.stop();
    }
  });
});

describe('a request whose lease this instance can no longer vouch for', () => {
  /** A reservation that lapsed in the shared budget while the instance was cut off. */
  class LapsedBudget extends MemoryBudget {
    override async renew(reservations: Reservation[] = []): Promise<ReadonlySet<string>> {
      return new Set(reservations.map((reservation) => reservation.id));
    }
  }

  async function fencedPipeline(budgetKind: 'held' | 'lapsed') {
    const store = openSqliteStore(':memory:');
    const digest = createKeyDigester('test-pepper-that-is-long-enough');
    const issued = await new KeyAdmin(store, digest).create({ kind: 'account', limitUsd: 1 });
    const registry = await KeyRegistry.open(store, digest);
    const clock = { now: 1_800_000_000_000 };
    const rows = new InflightRows(store, 'instance-test', 3_000, createLogger('silent'), {
      fenceMarginMs: 1_000,
      now: () => clock.now,
    });
    const budget =
      budgetKind === 'held' ? new MemoryBudget(new Map(), rows) : new LapsedBudget(new Map(), rows);
    const pipeline = new InferencePipeline({
      catalog: new Catalog(simulatedModels),
      registry,
      budget,
      rows,
      writer: new GenerationWriter(store),
      providers: new Map([
        [
          'simulated',
          {
            provider: createSimulatedProvider({ tokensPerSecond: 0 }),
            retry: defaultRetry,
            breaker: new CircuitBreaker(defaultBreaker),
          },
        ],
      ]),
      logger: createLogger('silent'),
    });
    const key = (await registry.findByKey(issued.key))!;
    const run = await pipeline.start(
      input(key, request({ stream: true, maxTokens: 50 }), '00000000000000f1-TST'),
    );
    // Three events out, and their checkpoint written, while the lease holds.
    const iterator = run.events[Symbol.asyncIterator]();
    for (let index = 0; index < 3; index += 1) await iterator.next();
    await rows.checkpointNow();
    // No renewal gets through for two seconds: the lease is within the margin of its end.
    clock.now += 2_000;
    const stopped = await iterator.next().then(
      () => null,
      (error: unknown) => error as GatewayError,
    );
    await pipeline.whenIdle();
    const close = async () => {
      await rows.flush();
      await store.close();
    };
    return { store, budget, key, stopped, close };
  }

  it('stops before the next event with a 503, and charges what was delivered while the reservation holds', async () => {
    const { store, budget, key, stopped, close } = await fencedPipeline('held');
    expect(stopped).toMatchObject({ status: 503, type: 'provider_error', stage: 'provider' });
    const record = (await store.getGeneration('00000000000000f1-TST'))!;
    expect(record).toMatchObject({
      outcome: 'ended_early',
      finishReason: 'error',
      completionTokens: 3,
    });
    expect(record.costNanos).toBeGreaterThan(0);
    expect(await budget.reservedFor(key.id)).toBe(0);
    expect(await store.listInflight()).toEqual([]);
    await close();
  });

  it('charges nothing once its reservation has lapsed, and leaves no row to charge later', async () => {
    const { store, budget, key, stopped, close } = await fencedPipeline('lapsed');
    expect(stopped).toMatchObject({ status: 503 });
    expect(await store.getGeneration('00000000000000f1-TST')).toBeUndefined();
    expect(await store.pendingFor(key.id)).toBe(0);
    expect(await budget.reservedFor(key.id)).toBe(0);
    await eventually(async () => ((await store.listInflight()).length === 0 ? true : undefined));
    await close();
  });
});
