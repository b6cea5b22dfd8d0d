/**
 * Upstream failures over real HTTP, against fake upstreams on loopback that refuse, stall, reset,
 * rate limit, fail, answer garbage or count wrong: what the client sees in each form (status,
 * Retry-After, the form's own error event once a stream has begun), what is retried and where it
 * falls back, what the breaker does, and what it all costs.
 */
import { countTokens } from 'gpt-tokenizer';
import {
  balanceSchema,
  generationRecordSchema,
  modelEndpointListSchema,
  modelEndpointSchema,
  type GenerationRecord,
} from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import { loadTokenizer } from '../pipeline/usage-estimate';
import {
  startFakeUpstream,
  startUnacceptingServer,
  type FakeReply,
  type FakeUpstream,
} from '../../testing/upstreams/fake-upstream';
import {
  callForm,
  expectBrokenStream,
  formErrorMessage,
  PUBLIC_FORMS,
  readFormAnswer,
} from '../../testing/upstreams/public-forms';
import {
  closedPortUrl,
  fixtureEvents,
  fixtureJson,
  providersFileFor,
  type UpstreamProviderSpec,
} from '../../testing/upstreams/upstream-kit';
import {
  capturingLogger,
  eventually,
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

/** Every model here costs this much per token, unless its provider says otherwise. */
const PROMPT_NANOS = 1_000;
const COMPLETION_NANOS = 2_000;

/** The fake upstreams, by provider id; `refused` and `unreachable` have none (nothing listens at
 * their address), `blackhole` a server that never accepts a connection. */
const fakes: Record<string, FakeUpstream> = {};
let blackhole: Awaited<ReturnType<typeof startUnacceptingServer>>;
const CONNECT_MS = 300;
let gateway: TestGateway;
let key: string;
let upstreamKeys: Record<string, string>;
const log = capturingLogger('debug');

const oneAttempt = { max_attempts: 1 };
const threeQuickAttempts = { max_attempts: 3, base_delay_ms: 1, max_delay_ms: 5 };
/** Only the breaker test trips a breaker. */
const noBreaker = { failure_threshold: 1_000 };

function provider(
  id: string,
  models: string[],
  options: Partial<UpstreamProviderSpec> & { prices?: [string, string] } = {},
): UpstreamProviderSpec {
  const [prompt, completion] = options.prices ?? ['0.000001', '0.000002'];
  return {
    id,
    kind: 'openai-compatible',
    url: fakes[id]?.url ?? '',
    retry: oneAttempt,
    breaker: noBreaker,
    ...options,
    models: models.map((model) => ({
      id: model,
      upstreamModel: `${id}-upstream`,
      prompt,
      completion,
    })),
  };
}

beforeAll(async () => {
  await loadTokenizer();
  const ids =
    'slow stall reset twice patient busy_a busy_b flaky steady garbled estimating greedy strict ' +
    'fragile leaving inband_oai inband_ant inband_gem polyglot rescuer';
  for (const id of ids.split(' ')) fakes[id] = await startFakeUpstream();
  const refusedUrl = await closedPortUrl();
  blackhole = await startUnacceptingServer();
  const setup = providersFileFor([
    provider('refused', ['faults/refused'], {
      url: refusedUrl,
      retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 5 },
    }),
    // Listed before `rescuer`, so they are tried first for the models they share with it.
    provider('unreachable', ['faults/unreachable-first'], {
      url: await closedPortUrl(),
      retry: threeQuickAttempts,
    }),
    provider('blackhole', ['faults/slow-connect', 'faults/slow-connect-first'], {
      url: blackhole.url,
      timeouts: { connect_ms: CONNECT_MS, first_byte_ms: 20_000 },
      retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 5 },
    }),
    provider('rescuer', ['faults/unreachable-first', 'faults/slow-connect-first']),
    provider('slow', ['faults/slow'], { timeouts: { first_byte_ms: 300 } }),
    provider('stall', ['faults/stall'], { timeouts: { idle_ms: 300 } }),
    provider('reset', ['faults/reset']),
    provider('twice', ['faults/cut-early'], {
      retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 5 },
    }),
    provider('patient', ['faults/retry-after'], {
      retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 2_000 },
    }),
    provider('busy_a', ['faults/busy-pair', 'faults/busy-solo']),
    provider('busy_b', ['faults/busy-pair']),
    provider('flaky', ['faults/fallback'], { retry: threeQuickAttempts }),
    provider('steady', ['faults/fallback'], {
      kind: 'anthropic',
      prices: ['0.0000001', '0.000003'],
    }),
    provider('garbled', ['faults/garbled'], { retry: threeQuickAttempts }),
    provider('estimating', ['faults/no-usage']),
    provider('greedy', ['faults/overcount'], { prices: ['0.000001', '0.000001'] }),
    provider('polyglot', ['faults/dense-prompt']),
    provider('strict', ['faults/client-errors'], { retry: threeQuickAttempts }),
    provider('fragile', ['faults/breaker'], {
      breaker: { failure_threshold: 2, cooldown_ms: 1_500 },
    }),
    provider('leaving', ['faults/abort'], { prices: ['0.000001', '0.000001'] }),
    provider('inband_oai', ['faults/inband-oai']),
    provider('inband_ant', ['faults/inband-ant'], { kind: 'anthropic' }),
    provider('inband_gem', ['faults/inband-gem'], { kind: 'gemini' }),
  ]);
  upstreamKeys = setup.upstreamKeys;
  gateway = await startTestGateway(
    { providers: setup.providers, settleIntervalMs: 600_000 },
    { logger: log.logger },
  );
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
  await blackhole?.close();
});

const question = (
  form: PublicFormName,
  maxTokens = 200,
  text = 'Hello there',
): Record<string, unknown> => {
  switch (form) {
    case 'chat_completions':
      return { messages: [{ role: 'user', content: text }], max_tokens: maxTokens };
    case 'messages':
      return { max_tokens: maxTokens, messages: [{ role: 'user', content: text }] };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text }] }],
        generationConfig: { maxOutputTokens: maxTokens },
      };
    case 'responses':
      return { input: text, max_output_tokens: maxTokens };
  }
};

const ask = (
  model: string,
  options: {
    form?: PublicFormName;
    stream?: boolean;
    as?: string;
    signal?: AbortSignal;
    maxTokens?: number;
    /** The user's message; "Hello there" unless given. */
    text?: string;
  } = {},
) =>
  callForm(
    options.form ?? 'chat_completions',
    gateway.url,
    options.as ?? key,
    model,
    question(options.form ?? 'chat_completions', options.maxTokens, options.text),
    {
      stream: options.stream ?? false,
      signal: options.signal,
    },
  );

const openaiText = (): FakeReply => ({
  body: fixtureJson('openai-compatible', 'openai-text-response.json'),
});
const openaiStream = (): FakeReply => ({
  events: fixtureEvents('openai-compatible', 'openai-text-stream.chunks.txt'),
});
const STREAMED_TEXT = 'Hello! How can I assist you today?';

async function generation(cfRay: string, as = key): Promise<GenerationRecord | undefined> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, as);
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

async function balance(as: string) {
  await gateway.gateway.settlement.settleNow();
  return balanceSchema.parse(await (await getWithKey(`${gateway.url}/v1/balance`, as)).json());
}

/** A request to one fake upstream: how many requests reached it, and the answer. */
async function counting<T>(id: string, send: () => Promise<T>) {
  const before = fakes[id]!.requests.length;
  const result = await send();
  return { result, reached: fakes[id]!.requests.length - before };
}

async function errorOf(form: PublicFormName, response: Response) {
  const body = (await response.json()) as Record<string, unknown>;
  return {
    status: response.status,
    body,
    message: formErrorMessage(form, body),
    retryAfter: response.headers.get('retry-after'),
  };
}

describe('a provider that cannot be reached or does not answer', () => {
  it.each(PUBLIC_FORMS)(
    'a refused connection is a 502 in the %s form, and costs nothing',
    async (form) => {
      const spender = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      const response = await ask('faults/refused', { form, as: spender.key });
      const error = await errorOf(form, response);
      expect(error.status).toBe(502);
      expect(error.message).toContain("Provider 'refused' could not be reached");
      expect(error.retryAfter).toBe('5');
      // Every form says the stage and when to retry, in its own shape.
      if (form === 'chat_completions')
        expect(error.body).toMatchObject({ stage: 'provider', retry_after: 5 });
      if (form === 'messages')
        expect(error.body).toMatchObject({
          type: 'error',
          error: { type: 'api_error', stage: 'provider', retry_after: 5 },
        });
      if (form === 'gemini')
        expect(error.body).toMatchObject({
          error: { code: 502, status: 'UNAVAILABLE', stage: 'provider', retry_after: 5 },
        });
      // Failed before any output: no record, nothing pending, nothing held.
      expect(await generation(response.headers.get('cf-ray')!, spender.key)).toBeUndefined();
      const after = await balance(spender.key);
      expect(after.consumption_usd).toBe(0);
      expect(after.remaining_usd).toBe(1);
      expect(await gateway.gateway.parts.budget.reservedFor(spender.id)).toBe(0);
    },
  );

  it('a provider slower to answer than first_byte_ms is a 504, and the gateway hangs up on it', async () => {
    fakes.slow!.reply({ fault: 'stall_headers' });
    const disconnects = fakes.slow!.disconnects;
    const { result: response, reached } = await counting('slow', () => ask('faults/slow'));
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(504);
    expect(error.message).toContain("Provider 'slow' timed out");
    expect(error.body).toMatchObject({ type: 'provider_error', stage: 'provider' });
    expect(reached).toBe(1);
    await eventually(() => (fakes.slow!.disconnects === disconnects + 1 ? true : undefined));
    expect(await generation(response.headers.get('cf-ray')!)).toBeUndefined();
  });
});

describe('connections retried before the answer starts', () => {
  it('a refused connection is retried up to max_attempts, then the next provider answers', async () => {
    fakes.rescuer!.reply(openaiText());
    const { result: response, reached } = await counting('rescuer', () =>
      ask('faults/unreachable-first'),
    );
    expect(response.status).toBe(200);
    expect(reached).toBe(1);
    expect(response.headers.get('x-gateway-attempts')).toBe('4');
    await response.text();
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
      { provider: 'unreachable', status: 'connect' },
      { provider: 'unreachable', status: 'connect' },
      { provider: 'unreachable', status: 'connect' },
      { provider: 'rescuer', status: 200 },
    ]);
  });

  it('a provider that does not accept the connection within connect_ms is a 504, after max_attempts', async () => {
    const began = performance.now();
    const response = await ask('faults/slow-connect');
    const elapsed = performance.now() - began;
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(504);
    expect(error.message).toContain(
      "Provider 'blackhole' timed out: The provider did not accept a connection in time.",
    );
    expect(error.body).toMatchObject({ type: 'provider_error', stage: 'provider' });
    // Two attempts of connect_ms each (and some slack for a busy machine): the connect clock,
    // not first_byte_ms (20 s) nor undici's default connect timeout (10 s), ended them.
    expect(elapsed).toBeGreaterThanOrEqual(2 * CONNECT_MS - 10);
    expect(elapsed).toBeLessThan(2 * 2_000);
  });

  it('a slow connect falls back like any failure: the record shows each attempt’s connect timeout', async () => {
    fakes.rescuer!.reply(openaiText());
    const response = await ask('faults/slow-connect-first');
    expect(response.status).toBe(200);
    await response.text();
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
      { provider: 'blackhole', status: 'connect_timeout' },
      { provider: 'blackhole', status: 'connect_timeout' },
      { provider: 'rescuer', status: 200 },
    ]);
    for (const attempt of record.attempts!.slice(0, 2)) {
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(CONNECT_MS - 10);
      expect(attempt.latency_ms).toBeLessThan(2_000);
    }
  });
});

describe('a stream that breaks after it began', () => {
  it.each(PUBLIC_FORMS)(
    'a stream gone silent for idle_ms ends with the %s form’s error event, charged for what was delivered',
    async (form) => {
      // Three text deltas ("Hello", "!", " How"), then silence.
      fakes.stall!.reply({ events: openaiStream().events, fault: 'stall_mid', cutAfter: 4 });
      const response = await ask('faults/stall', { form, stream: true });
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe('Hello! How');
      expectBrokenStream(form, answer, 504, "Provider 'stall' timed out");
      const record = (await generation(response.headers.get('cf-ray')!))!;
      expect(record).toMatchObject({
        outcome: 'ended_early',
        finish_reason: 'error',
        usage_estimated: true,
        prompt_tokens: countTokens('Hello there'),
        completion_tokens: countTokens('Hello! How'),
      });
      expect(toNanos(record.cost_usd)).toBe(
        record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
      );
    },
  );

  it.each(PUBLIC_FORMS)(
    'a connection reset mid-stream ends with the %s form’s error event',
    async (form) => {
      fakes.reset!.reply({ events: openaiStream().events, fault: 'reset_mid', cutAfter: 4 });
      const response = await ask('faults/reset', { form, stream: true });
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe('Hello! How');
      expectBrokenStream(
        form,
        answer,
        502,
        "Provider 'reset': The provider closed the connection before its answer ended",
      );
      const record = (await generation(response.headers.get('cf-ray')!))!;
      expect(record).toMatchObject({
        outcome: 'ended_early',
        finish_reason: 'error',
        completion_tokens: countTokens('Hello! How'),
      });
      expect(toNanos(record.cost_usd)).toBe(
        record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
      );
    },
  );

  it.each(PUBLIC_FORMS)(
    'a stream cut before its first token is retried unseen: the %s client gets one clean answer',
    async (form) => {
      // The first attempt sends only the role chunk, then resets; the second answers whole.
      fakes.twice!.reply(
        { events: openaiStream().events, fault: 'reset_mid', cutAfter: 1 },
        openaiStream(),
      );
      const { result: response, reached } = await counting('twice', () =>
        ask('faults/cut-early', { form, stream: true }),
      );
      expect(reached).toBe(2);
      expect(response.headers.get('x-gateway-attempts')).toBe('2');
      const answer = await readFormAnswer(form, response, true);
      expect(answer).toMatchObject({
        text: STREAMED_TEXT,
        streamError: null,
        cleanEnd: true,
        usage: { prompt: 19, completion: 10 },
      });
      const record = (await generation(response.headers.get('cf-ray')!))!;
      expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
        { provider: 'twice', status: 'cut' },
        { provider: 'twice', status: 200 },
      ]);
      expect(record.outcome).toBe('completed');
    },
  );

  it.each(PUBLIC_FORMS)(
    'a stream cut after its first text is not retried, though the provider allows another attempt: the %s client gets the error event',
    async (form) => {
      // Three text deltas reach the client, then the connection resets; a retry would send them twice.
      fakes.twice!.reply({ events: openaiStream().events, fault: 'reset_mid', cutAfter: 4 });
      const before = fakes.twice!.requests.length;
      const response = await ask('faults/cut-early', { form, stream: true });
      // Sent only when an answer took more than one attempt.
      expect(response.headers.get('x-gateway-attempts')).toBeNull();
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe('Hello! How');
      expectBrokenStream(
        form,
        answer,
        502,
        "Provider 'twice': The provider closed the connection before its answer ended",
      );
      // Counted once the answer is over: a retry would have come before its end.
      expect(fakes.twice!.requests.length - before).toBe(1);
      const record = (await generation(response.headers.get('cf-ray')!))!;
      expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
        { provider: 'twice', status: 200 },
      ]);
      expect(record).toMatchObject({ outcome: 'ended_early', finish_reason: 'error' });
    },
  );

  it.each([
    {
      form: 'chat_completions',
      model: 'faults/inband-ant',
      reply: () => ({
        events: fixtureEvents('anthropic', 'anthropic-overloaded-stream.chunks.txt'),
      }),
      text: 'Hello',
      status: 503,
      message: "Provider 'inband_ant' is overloaded: Overloaded",
    },
    {
      form: 'messages',
      model: 'faults/inband-gem',
      reply: () => ({ events: fixtureEvents('gemini', 'gemini-in-band-error.chunks.txt') }),
      text: 'Once',
      status: 503,
      message: "Provider 'inband_gem' is overloaded: The model is overloaded.",
    },
    {
      form: 'gemini',
      model: 'faults/inband-oai',
      reply: () => ({
        events: fixtureEvents('openai-compatible', 'openai-in-band-error.chunks.txt'),
      }),
      text: 'The tallest building',
      status: 502,
      message: 'Provider disconnected unexpectedly',
    },
    {
      form: 'chat_completions',
      model: 'faults/inband-gem',
      reply: () => ({ events: fixtureEvents('gemini', 'gemini-no-finish.chunks.txt') }),
      text: 'Once upon a time',
      status: 502,
      message: "Provider 'inband_gem': The provider’s stream ended before its answer did",
    },
  ] as const)(
    'an upstream error inside a 200 stream ($model) becomes the $form form’s error event',
    async (scenario) => {
      const id = `inband_${scenario.model.slice('faults/inband-'.length)}`;
      fakes[id]!.reply(scenario.reply());
      const response = await ask(scenario.model, { form: scenario.form, stream: true });
      const answer = await readFormAnswer(scenario.form, response, true);
      expect(answer.text).toBe(scenario.text);
      expectBrokenStream(scenario.form, answer, scenario.status, scenario.message);
      expect((await generation(response.headers.get('cf-ray')!))?.outcome).toBe('ended_early');
    },
  );
});

const rateLimited = (retryAfter: string): FakeReply => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: {
    error: {
      message: 'Rate limit reached for requests',
      type: 'requests',
      code: 'rate_limit_exceeded',
    },
  },
});

describe('rate limits', () => {
  it('a 429 with Retry-After is retried after that delay, then succeeds', async () => {
    fakes.patient!.reply(rateLimited('1'), openaiText());
    const { result: response, reached } = await counting('patient', () =>
      ask('faults/retry-after'),
    );
    expect(response.status).toBe(200);
    expect(reached).toBe(2);
    const [limited, retried] = fakes.patient!.requests.slice(-2);
    // A timer never fires early (a millisecond of rounding aside): the retry waited the second asked.
    expect(retried!.receivedAt - limited!.receivedAt).toBeGreaterThanOrEqual(990);
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record.attempts?.map(({ status }) => status)).toEqual([429, 200]);
  });

  it('a 408 is retried, then answered', async () => {
    fakes.patient!.reply(
      { status: 408, body: { error: { message: 'Request timed out', type: 'timeout' } } },
      openaiText(),
    );
    const { result: response, reached } = await counting('patient', () =>
      ask('faults/retry-after'),
    );
    expect(response.status).toBe(200);
    expect(reached).toBe(2);
    expect((await readFormAnswer('chat_completions', response, false)).text).toContain(
      'wooden boardwalk',
    );
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record.attempts?.map(({ status }) => status)).toEqual([408, 200]);
  });

  it('a Retry-After longer than max_delay_ms is not waited for: the client gets the 429 and the delay', async () => {
    fakes.patient!.reply(rateLimited('30'));
    const { result: response, reached } = await counting('patient', () =>
      ask('faults/retry-after'),
    );
    expect(reached).toBe(1);
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBe('30');
    expect(error.body).toMatchObject({ type: 'rate_limited', stage: 'provider' });
  });

  it.each(PUBLIC_FORMS)(
    '429 from both providers of a model is a 503 with Retry-After in the %s form',
    async (form) => {
      fakes.busy_a!.reply(rateLimited('7'));
      fakes.busy_b!.reply(rateLimited('7'));
      const response = await ask('faults/busy-pair', { form });
      const error = await errorOf(form, response);
      expect(error.status).toBe(503);
      expect(error.retryAfter).toBe('7');
      expect(error.message).toContain('Every provider of this model is rate limited');
      if (form === 'messages')
        expect(error.body).toMatchObject({ error: { type: 'overloaded_error' } });
      if (form === 'gemini')
        expect(error.body).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    },
  );

  it.each(PUBLIC_FORMS)(
    '429 from the only provider of a model stays a 429 with Retry-After in the %s form',
    async (form) => {
      fakes.busy_a!.reply(rateLimited('7'));
      const { result: response, reached } = await counting('busy_a', () =>
        ask('faults/busy-solo', { form }),
      );
      expect(reached).toBe(1);
      const error = await errorOf(form, response);
      expect(error.status).toBe(429);
      expect(error.retryAfter).toBe('7');
      expect(error.message).toContain(
        "Provider 'busy_a' is rate limiting: Rate limit reached for requests",
      );
      if (form === 'messages')
        expect(error.body).toMatchObject({ error: { type: 'rate_limit_error' } });
      if (form === 'gemini')
        expect(error.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    },
  );
});

describe('server errors', () => {
  it('a 500 is retried up to max_attempts, then the next provider of the model answers', async () => {
    const failure: FakeReply = {
      status: 500,
      body: { error: { message: 'The server had an error', type: 'server_error' } },
    };
    fakes.flaky!.reply(failure, failure, failure);
    fakes.steady!.reply({ body: fixtureJson('anthropic', 'anthropic-text-response.json') });
    const flakyBefore = fakes.flaky!.requests.length;
    const { result: response, reached } = await counting('steady', () =>
      ask('faults/fallback', { maxTokens: 1_000 }),
    );
    expect(reached).toBe(1);
    expect(fakes.flaky!.requests.length - flakyBefore).toBe(3);
    expect(response.headers.get('x-gateway-provider')).toBe('steady');
    expect(response.headers.get('x-gateway-attempts')).toBe('4');
    const answer = await readFormAnswer('chat_completions', response, false);
    expect(answer.text).toBe('Hi! My name is Claude.');
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record.provider).toBe('steady');
    expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
      { provider: 'flaky', status: 500 },
      { provider: 'flaky', status: 500 },
      { provider: 'flaky', status: 500 },
      { provider: 'steady', status: 200 },
    ]);
    // Charged at the answering provider's prices.
    expect(toNanos(record.cost_usd)).toBe((2095 + 2051 + 2051) * 100 + 503 * 3_000);
    expect(toNanos(answer.costUsd!)).toBe(toNanos(record.cost_usd));
  });
});

describe('answers the gateway cannot read', () => {
  it.each([
    {
      what: 'malformed JSON',
      stream: false,
      reply: { body: '{"choices": [' },
      message: 'not valid JSON',
    },
    {
      what: 'an HTML page instead of JSON',
      stream: false,
      reply: {
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: '<html><body>Sign in</body></html>',
      },
      message: "answered with 'text/html', not JSON",
    },
    {
      what: 'an HTML page instead of an event stream',
      stream: true,
      reply: {
        headers: { 'content-type': 'text/html' },
        body: '<html><body>Sign in</body></html>',
      },
      message: "answered with 'text/html', not an event stream",
    },
    {
      what: 'a stream chunk that is not JSON',
      stream: true,
      reply: { events: ['data: {not json\n\n'] },
      message: 'not JSON',
    },
  ] as const)('$what is a 502, not retried', async ({ stream, reply, message }) => {
    fakes.garbled!.reply(structuredClone(reply) as FakeReply);
    const { result: response, reached } = await counting('garbled', () =>
      ask('faults/garbled', { stream }),
    );
    expect(reached).toBe(1);
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(502);
    expect(error.message).toContain("Provider 'garbled' sent an answer the gateway cannot read");
    expect(error.message).toContain(message);
    expect(await generation(response.headers.get('cf-ray')!)).toBeUndefined();
  });
});

describe('usage', () => {
  it('missing from a plain answer: the gateway counts it, and the record says so', async () => {
    const { usage: _usage, ...withoutUsage } = fixtureJson(
      'openai-compatible',
      'openai-text-response.json',
    );
    fakes.estimating!.reply({ body: withoutUsage });
    const response = await ask('faults/no-usage');
    const answer = await readFormAnswer('chat_completions', response, false);
    const text =
      'The image shows a wooden boardwalk path running through a lush green field or meadow.';
    expect(answer.text).toBe(text);
    const counted = { prompt: countTokens('Hello there'), completion: countTokens(text) };
    expect(answer.usage).toEqual(counted);
    const record = (await generation(response.headers.get('cf-ray')!))!;
    expect(record).toMatchObject({
      usage_estimated: true,
      charge_capped: false,
      prompt_tokens: counted.prompt,
      completion_tokens: counted.completion,
    });
    expect(toNanos(record.cost_usd)).toBe(
      counted.prompt * PROMPT_NANOS + counted.completion * COMPLETION_NANOS,
    );
  });

  it.each(PUBLIC_FORMS)(
    'missing from a stream: counted, and the %s client is shown what was charged',
    async (form) => {
      fakes.estimating!.reply({
        events: fixtureEvents('openai-compatible', 'openai-stream-without-usage.chunks.txt'),
      });
      const response = await ask('faults/no-usage', { form, stream: true });
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe(STREAMED_TEXT);
      const counted = {
        prompt: countTokens('Hello there'),
        completion: countTokens(STREAMED_TEXT),
      };
      expect(answer.usage).toEqual(counted);
      const record = (await generation(response.headers.get('cf-ray')!))!;
      expect(record).toMatchObject({
        usage_estimated: true,
        outcome: 'completed',
        completion_tokens: counted.completion,
      });
    },
  );

  it('far above what was reserved: each charge is capped, and a small key never passes limit + grace', async () => {
    const limitUsd = 0.0002;
    const graceUsd = 0.00001;
    const spender = await gateway.createKey({ kind: 'account', limitUsd, graceUsd });
    // "Hello there" is a handful of tokens; this upstream says a million.
    const overcount = fixtureJson('openai-compatible', 'openai-text-response.json');
    overcount.usage = { prompt_tokens: 1_000_000, completion_tokens: 5, total_tokens: 1_000_005 };
    fakes.greedy!.fallback = { body: overcount };
    let charged = 0;
    let served = 0;
    let refused = 0;
    for (let attempt = 0; attempt < 8 && refused === 0; attempt += 1) {
      const response = await ask('faults/overcount', { as: spender.key, maxTokens: 20 });
      if (response.status === 402) {
        refused += 1;
        await response.text();
        continue;
      }
      const answer = await readFormAnswer('chat_completions', response, false);
      served += 1;
      // The usage shown is the upstream's; the cost is what the reservation allowed.
      expect(answer.usage).toEqual({ prompt: 1_000_000, completion: 5 });
      const record = (await generation(response.headers.get('cf-ray')!, spender.key))!;
      expect(record).toMatchObject({
        charge_capped: true,
        usage_estimated: false,
        prompt_tokens: 1_000_000,
      });
      expect(toNanos(record.cost_usd)).toBe(toNanos(answer.costUsd!));
      expect(toNanos(record.cost_usd)).toBeLessThan(1_000_005 * 1_000);
      charged += toNanos(record.cost_usd);
    }
    expect(served).toBeGreaterThan(0);
    expect(refused).toBe(1);
    expect(charged).toBeLessThanOrEqual(toNanos(limitUsd + graceUsd));
    const after = await balance(spender.key);
    expect(toNanos(after.consumption_usd)).toBe(charged);
    expect(toNanos(after.consumption_usd)).toBeLessThanOrEqual(toNanos(limitUsd + graceUsd));
  });
});

describe('a prompt that tokenizes densely', () => {
  it.each([
    [
      'Chinese',
      '我们今天讨论一下模型网关的计费问题以及上游提供商的重试策略，请详细说明。'.repeat(20),
    ],
    ['rare CJK characters', '龘靐齉爩鱻麤'.repeat(60)],
    ['emoji', '😀🎉🚀🔥💯'.repeat(50)],
  ])(
    'in %s is reserved for in full: the upstream’s real prompt count is charged, not capped',
    async (_, prompt) => {
      // Far more tokens than characters / 2 (the old bound): the upstream counts them all, plus
      // the few its chat template adds. A short answer leaves no output reserve to absorb them.
      const promptTokens = countTokens(prompt) + 7;
      expect(promptTokens).toBeGreaterThan(prompt.length / 2 + 40);
      const answer = fixtureJson('openai-compatible', 'openai-text-response.json');
      answer.usage = { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: 0 };
      fakes.polyglot!.reply({ body: answer });
      const spender = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      const response = await ask('faults/dense-prompt', {
        as: spender.key,
        text: prompt,
        maxTokens: 1,
      });
      expect(response.status).toBe(200);
      expect((await readFormAnswer('chat_completions', response, false)).usage).toEqual({
        prompt: promptTokens,
        completion: 1,
      });
      const record = (await generation(response.headers.get('cf-ray')!, spender.key))!;
      expect(record).toMatchObject({
        charge_capped: false,
        usage_estimated: false,
        prompt_tokens: promptTokens,
        completion_tokens: 1,
      });
      expect(toNanos(record.cost_usd)).toBe(promptTokens * PROMPT_NANOS + COMPLETION_NANOS);
    },
  );
});

describe("the upstream's own refusals", () => {
  it.each([
    {
      upstream: 400,
      client: 400,
      type: 'invalid_request',
      says: "Provider 'strict' refused the request",
    },
    {
      upstream: 401,
      client: 502,
      type: 'provider_error',
      says: "refused the gateway's own credentials",
    },
    {
      upstream: 403,
      client: 403,
      type: 'permission_denied',
      says: "Provider 'strict' denied the request",
    },
    {
      upstream: 404,
      client: 502,
      type: 'provider_error',
      says: 'does not serve the configured upstream model',
    },
    {
      upstream: 422,
      client: 400,
      type: 'invalid_request',
      says: "Provider 'strict' refused the request",
    },
  ])(
    'HTTP $upstream is not retried on the same provider: the client gets $client',
    async ({ upstream, client, type, says }) => {
      const upstreamKey = upstreamKeys.strict!;
      fakes.strict!.reply({
        status: upstream,
        body: {
          error: {
            message: `Incorrect API key provided: ${upstreamKey}.`,
            type: 'invalid_request_error',
          },
        },
      });
      const { result: response, reached } = await counting('strict', () =>
        ask('faults/client-errors'),
      );
      expect(reached).toBe(1);
      const text = await response.text();
      expect(response.status).toBe(client);
      const body = JSON.parse(text) as { error: string; type: string };
      expect(body.type).toBe(type);
      expect(body.error).toContain(says);
      expect(text).not.toContain(upstreamKey);
      expect(text).not.toContain(upstreamKey.slice(3, 20));
    },
  );

  it("cleans the upstream's message of keys and internal addresses, for the client and the log", async () => {
    const upstreamKey = upstreamKeys.strict!;
    fakes.strict!.reply({
      status: 400,
      body: {
        error: {
          message: `Bad request from key ${upstreamKey} routed to http://10.20.30.40:8080/internal/route (backend 10.20.30.41:9000, token sk-proj-abcdefgh12345678)`,
        },
      },
    });
    const response = await ask('faults/client-errors');
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(400);
    expect(error.message).toContain('Bad request from key [redacted] routed to [address]');
    for (const secret of [
      upstreamKey,
      '10.20.30.4',
      'http://',
      '/internal/route',
      'sk-proj-abcdefgh12345678',
    ]) {
      expect(error.message).not.toContain(secret);
    }
    expect(log.text()).not.toContain(upstreamKey);
    expect(log.text()).not.toContain('/internal/route');
  });
});

describe('the breaker', () => {
  const endpoint = async () => {
    const list = modelEndpointListSchema.parse(
      await (await fetch(`${gateway.url}/v1/models/faults/breaker/endpoints`)).json(),
    );
    return modelEndpointSchema.parse(list.data[0]);
  };

  it('takes a provider out after failure_threshold failures, then lets exactly one trial through, which closes it', async () => {
    const fragile = fakes.fragile!;
    fragile.fallback = { status: 500, body: { error: { message: 'The server had an error' } } };
    expect((await endpoint()).status).toBe('healthy');
    for (let failure = 0; failure < 2; failure += 1) {
      const response = await ask('faults/breaker');
      expect(response.status).toBe(502);
      await response.text();
    }
    expect(fragile.requests.length).toBe(2);
    const cooling = await endpoint();
    expect(cooling).toMatchObject({
      provider: 'fragile',
      status: 'cooling_down',
      retry_after: expect.any(Number),
    });
    expect(cooling.retry_after).toBeGreaterThanOrEqual(1);

    // Skipped while it cools down: the upstream gets no request, the client a 503 with a delay.
    const skipped = await ask('faults/breaker');
    const error = await errorOf('chat_completions', skipped);
    expect(error.status).toBe(503);
    expect(error.message).toContain('cooling down');
    expect(Number(error.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(fragile.requests.length).toBe(2);

    // After cooldown_ms, one trial goes through; while it runs, no other request does.
    await eventually(async () => ((await endpoint()).status === 'healthy' ? true : undefined));
    let release = () => {};
    fragile.reply({
      ...openaiText(),
      holdUntil: new Promise<void>((resolve) => (release = resolve)),
    });
    const trial = ask('faults/breaker');
    await eventually(() => (fragile.requests.length === 3 ? true : undefined));
    const meanwhile = await ask('faults/breaker');
    expect(meanwhile.status).toBe(503);
    await meanwhile.text();
    expect(fragile.requests.length).toBe(3);
    release();
    const trialResponse = await trial;
    expect(trialResponse.status).toBe(200);
    await trialResponse.text();

    // Closed again: healthy, and the next request goes through.
    expect(await endpoint()).toMatchObject({ status: 'healthy', retry_after: null });
    fragile.reply(openaiText());
    const after = await ask('faults/breaker');
    expect(after.status).toBe(200);
    await after.text();
    expect(fragile.requests.length).toBe(4);
  });
});

describe('a client that leaves mid-stream', () => {
  it('cancels the upstream request, frees the reservation, and is charged only for what was delivered', async () => {
    const leaving = fakes.leaving!;
    // Enough for one request's reservation (prompt bound + 100 output tokens), not for two.
    const spender = await gateway.createKey({ kind: 'account', limitUsd: 0.0002 });
    leaving.reply({ events: openaiStream().events, eventIntervalMs: 200 });
    const disconnects = leaving.disconnects;
    const abort = new AbortController();
    const response = await ask('faults/abort', {
      as: spender.key,
      stream: true,
      signal: abort.signal,
      maxTokens: 100,
    });
    expect(response.status).toBe(200);
    const cfRay = response.headers.get('cf-ray')!;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    let text = '';
    while (!text.includes('!')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before the test left it');
      received += decoder.decode(value, { stream: true });
      // Whole events only: the last piece may still be arriving.
      text = received
        .split('\n\n')
        .slice(0, -1)
        .map(
          (event) =>
            (
              JSON.parse(event.slice('data: '.length)) as {
                choices: Array<{ delta: { content?: string } }>;
              }
            ).choices[0]?.delta.content ?? '',
        )
        .join('');
    }
    // While it runs, its worst case is held: a second request of the same size does not fit.
    const whileRunning = await ask('faults/abort', { as: spender.key, maxTokens: 100 });
    expect(whileRunning.status).toBe(402);
    await whileRunning.text();

    abort.abort();
    await reader.cancel().catch(() => undefined);
    await eventually(() => (leaving.disconnects === disconnects + 1 ? true : undefined));
    const record = await eventually(() => generation(cfRay, spender.key));
    expect(record).toMatchObject({
      outcome: 'ended_early',
      usage_estimated: true,
      prompt_tokens: countTokens('Hello there'),
    });
    expect(record.completion_tokens).toBeGreaterThanOrEqual(countTokens(text));
    expect(record.completion_tokens).toBeLessThan(countTokens(STREAMED_TEXT));
    expect(toNanos(record.cost_usd)).toBe(
      (record.prompt_tokens + record.completion_tokens) * 1_000,
    );

    // Released: a request that needs the whole budget again is admitted.
    leaving.reply(openaiStream());
    const next = await eventually(async () => {
      const attempt = await ask('faults/abort', { as: spender.key, stream: true, maxTokens: 100 });
      if (attempt.status === 402) {
        await attempt.text();
        return undefined;
      }
      return attempt;
    });
    expect((await readFormAnswer('chat_completions', next, true)).text).toBe(STREAMED_TEXT);
    expect(await gateway.gateway.parts.budget.reservedFor(spender.id)).toBe(0);
    const nextRecord = (await generation(next.headers.get('cf-ray')!, spender.key))!;
    const after = await balance(spender.key);
    expect(toNanos(after.consumption_usd)).toBe(
      toNanos(record.cost_usd) + toNanos(nextRecord.cost_usd),
    );
  });
});
