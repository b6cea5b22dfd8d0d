/**
 * A provider that fails mid-answer: the client gets a 502 (or an error event mid-stream) in the
 * form's shape with no internals, the delivered tokens are charged and recorded as ended early,
 * and the reservation is released so the key can spend its whole budget again.
 */
import { Writable } from 'node:stream';
import { Ledger } from '../billing/ledger';
import { Catalog } from '../catalog/catalog';
import { KeyAdmin } from '../keys/key-admin';
import { createKeyDigester } from '../keys/key-material';
import { KeyRegistry } from '../keys/key-registry';
import { createSimulatedProvider } from '../providers/simulated/simulated-provider';
import { openSqliteStore } from '../store/sqlite-store';
import { InferencePipeline } from './inference-pipeline';
import type { CanonicalEvent } from '../canonical/model';
import { createLogger } from '../logger';
import type { Provider } from '../providers/provider';
import { simulatedModels } from '../providers/simulated/models';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  readSseData,
  startTestGateway,
  type TestGateway,
} from '../testing-support';

const DELIVERED_BEFORE_FAILURE = 3;

/** Serves the simulated catalog but breaks after a few tokens, as a dropped upstream would. */
const failingProvider: Provider = {
  name: 'simulated',
  async *stream() {
    for (let index = 0; index < DELIVERED_BEFORE_FAILURE; index += 1) {
      yield { type: 'text-delta', text: ` word${index}` } satisfies CanonicalEvent;
    }
    throw new Error('upstream connection reset at /internal/secret/path');
  },
};

let gateway: TestGateway;
let logged = '';

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logged += chunk.toString();
      callback();
    },
  });
  gateway = await startTestGateway(
    {},
    { providers: [failingProvider], logger: createLogger('info', destination) },
  );
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
    const { key } = gateway.createKey({ kind: 'account', limitUsd: 1 });
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
    expect(logged).toContain('upstream connection reset');
  });

  it('ends a stream with an error event and releases the reservation', async () => {
    // A budget of exactly one worst-case request: a leaked reservation would refuse the next one.
    const { key } = gateway.createKey({ kind: 'account', limitUsd: 0.0001 });
    const request = chatBody({ stream: true, max_tokens: 20 });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, request, { key });
    expect(response.status).toBe(200);
    const events = await readSseData(response);
    const last = JSON.parse(events.at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'provider_error', stage: 'provider' });
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

describe('a generation record that cannot be written', () => {
  it('fails the request without delivering the end, and still frees the reservation', async () => {
    const store = openSqliteStore(':memory:');
    const digest = createKeyDigester('test-pepper-that-is-long-enough');
    const issued = new KeyAdmin(store, digest).create({ kind: 'account', limitUsd: 1 });
    const registry = new KeyRegistry(store, digest);
    const ledger = new Ledger(new Map());
    const brokenStore = {
      ...store,
      insertGeneration: () => {
        throw new Error('disk full');
      },
    };
    const pipeline = new InferencePipeline({
      catalog: new Catalog(simulatedModels),
      registry,
      ledger,
      store: brokenStore,
      providers: new Map([['simulated', createSimulatedProvider({ tokensPerSecond: 0 })]]),
      logger: createLogger('silent'),
      maxConcurrentPerKey: 4,
    });
    const key = registry.findByKey(issued.key)!;
    const run = pipeline.start({
      key,
      request: {
        model: 'sim/chat-standard',
        system: null,
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        maxTokens: 8,
        temperature: 0,
        topP: null,
        stop: [],
        seed: null,
        tools: [],
        toolChoice: 'auto',
        stream: false,
      },
      form: 'chat_completions',
      traceId: '0123456789abcdef-TST',
      signal: new AbortController().signal,
      startedAt: performance.now(),
    });
    expect(ledger.reservedFor(key.id)).toBeGreaterThan(0);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of run.events) seen.push(event.type);
      })(),
    ).rejects.toThrow('disk full');
    // The answer's end was never delivered: it could not be recorded.
    expect(seen).not.toContain('finish');
    expect(ledger.reservedFor(key.id)).toBe(0);
    store.close();
  });
});
