/**
 * What a misbehaving upstream can make the gateway spend, over real HTTP against fake upstreams
 * on loopback: an event that never ends, a stream that never stops growing (text, or tool-call
 * fragments a transform gathers), a stream that only keeps its connection alive before its first
 * token, and one that never ends after it. Each is cut at its limit or deadline with the form's
 * error, the record charges what was delivered, and the key's slot and reservation come back.
 * The limits are tiny here so the tests stay small; their defaults are in provider-config.ts.
 */
import { countTokens } from 'gpt-tokenizer';
import { generationRecordSchema, type GenerationRecord } from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import { loadTokenizer } from '../pipeline/usage-estimate';
import {
  startFakeUpstream,
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
  fixtureEvents,
  providersFileFor,
  type UpstreamProviderSpec,
} from '../../testing/upstreams/upstream-kit';
import {
  eventually,
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';
import type { GatewayConfig } from '../config';

const PROMPT_NANOS = 1_000;
const COMPLETION_NANOS = 2_000;
/** The limits of the `bounded` providers: one event, and one whole stream. */
const EVENT_LIMIT = 1024;
const STREAM_LIMIT = 8 * 1024;

const fakes: Record<string, FakeUpstream> = {};
let gateway: TestGateway;
let providers: NonNullable<GatewayConfig['providers']>;

function provider(
  id: string,
  models: string[],
  options: Partial<UpstreamProviderSpec> = {},
): UpstreamProviderSpec {
  return {
    id,
    kind: 'openai-compatible',
    url: fakes[id]!.url,
    retry: { max_attempts: 1 },
    breaker: { failure_threshold: 1_000 },
    // A stream that the gateway fails to cut goes silent at its end: without the limits under
    // test, the idle timeout would end it, with another message.
    timeouts: { idle_ms: 3_000 },
    ...options,
    models: models.map((model) => ({
      id: model,
      upstreamModel: `${id}-upstream`,
      prompt: '0.000001',
      completion: '0.000002',
    })),
  };
}

/** The deadlines under test, as the providers file spells them, beside a short idle timeout. */
const deadlines = (fields: { first_event_ms?: number; total_ms?: number }) => ({
  idle_ms: 3_000,
  ...fields,
});

beforeAll(async () => {
  await loadTokenizer();
  for (const id of ['bounded', 'bounded_ant', 'hushed', 'steady', 'endless', 'flood']) {
    fakes[id] = await startFakeUpstream();
  }
  const setup = providersFileFor([
    provider('bounded', ['limits/bounded']),
    provider('bounded_ant', ['limits/bounded-ant'], { kind: 'anthropic' }),
    provider('hushed', ['limits/first-event', 'limits/first-event-fallback'], {
      timeouts: deadlines({ first_event_ms: 300 }),
    }),
    provider('steady', ['limits/first-event-fallback']),
    provider('endless', ['limits/total'], { timeouts: deadlines({ total_ms: 700 }) }),
    // Sends a long answer at once; one failure would take it out of rotation.
    provider('flood', ['limits/flood'], {
      timeouts: deadlines({ total_ms: 1_500 }),
      breaker: { failure_threshold: 1 },
    }),
  ]);
  providers = setup.providers;
  for (const config of setup.providers.upstream) {
    if (config.id.startsWith('bounded')) {
      config.limits = { maxEventBytes: EVENT_LIMIT, maxStreamBytes: STREAM_LIMIT };
    }
  }
  gateway = await startTestGateway(
    // One request at a time per key: a slot not given back refuses the next request.
    { providers: setup.providers, settleIntervalMs: 600_000, maxConcurrentPerKey: 1 },
  );
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

const question = (form: PublicFormName): Record<string, unknown> => {
  switch (form) {
    case 'chat_completions':
    case 'messages':
      return { max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
        generationConfig: { maxOutputTokens: 200 },
      };
    case 'responses':
      return { input: 'Hello there', max_output_tokens: 200 };
  }
};

const ask = (key: string, model: string, form: PublicFormName = 'chat_completions') =>
  callForm(form, gateway.url, key, model, question(form), { stream: true });

/** A chat-completion chunk carrying `delta`, as one event. */
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-limits',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'limits',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`;
const ROLE = chunk({ role: 'assistant', content: '' });
const text = (words: string) => chunk({ content: words });
const ending = [chunk({}, 'stop'), 'data: [DONE]\n\n'];
const KEEPALIVE = ': keepalive\n\n';

/** Keeps the connection open after the events, silent, as an upstream that hangs does. */
const thenHang = (events: string[], eventIntervalMs?: number): FakeReply => ({
  // The fake stops where `cutAfter` is reached, before the entry there, which is never sent.
  events: [...events, ''],
  eventIntervalMs,
  fault: 'stall_mid',
  cutAfter: events.length,
});

const openaiStream = (): FakeReply => ({
  events: fixtureEvents('openai-compatible', 'openai-text-stream.chunks.txt'),
});
const STREAMED_TEXT = 'Hello! How can I assist you today?';

async function spender() {
  return gateway.createKey({ kind: 'account', limitUsd: 1 });
}

async function generation(cfRay: string, key: string): Promise<GenerationRecord | undefined> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

async function errorOf(form: PublicFormName, response: Response) {
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, body, message: formErrorMessage(form, body) };
}

/**
 * The failed request gave back what it held: nothing is reserved for the key, and its one slot
 * takes the next request, which `fake` answers in full.
 */
async function expectReleased(key: { id: string; key: string }, model: string, fake: string) {
  expect(await gateway.gateway.parts.budget.reservedFor(key.id)).toBe(0);
  fakes[fake]!.reply(openaiStream());
  const next = await ask(key.key, model);
  expect(next.status).toBe(200);
  expect((await readFormAnswer('chat_completions', next, true)).text).toBe(STREAMED_TEXT);
}

/** The upstream call was abandoned: the fake saw its client go. */
async function expectHungUp(fake: string, before: number) {
  await eventually(() => (fakes[fake]!.disconnects > before ? true : undefined));
}

describe('an upstream event longer than the limit', () => {
  it.each([
    {
      shape: 'one line that never ends',
      events: [ROLE, `data: {"choices":[{"index":0,"delta":{"content":"${'a'.repeat(4 * 1024)}`],
    },
    {
      shape: 'data lines that never reach the blank line ending the event',
      events: [ROLE, ...Array.from({ length: 8 }, () => `data: ${'b'.repeat(400)}\n`)],
    },
  ])('is refused before the first byte: $shape', async ({ events }) => {
    const key = await spender();
    const disconnects = fakes.bounded!.disconnects;
    fakes.bounded!.reply(thenHang(events));
    const response = await ask(key.key, 'limits/bounded');
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(502);
    expect(error.body).toMatchObject({ type: 'provider_error', stage: 'provider' });
    expect(error.message).toBe(
      "Provider 'bounded' sent an answer the gateway cannot read: The provider sent an event longer than 1 KiB.",
    );
    await expectHungUp('bounded', disconnects);
    // Failed before any output, as other upstream failures: no record, nothing charged.
    expect(await generation(response.headers.get('cf-ray')!, key.key)).toBeUndefined();
    await expectReleased(key, 'limits/bounded', 'bounded');
  });

  it.each(PUBLIC_FORMS)(
    'ends a stream already begun with the %s form’s error event, charging what was delivered',
    async (form) => {
      const key = await spender();
      fakes.bounded!.reply(
        thenHang([
          ROLE,
          text('Hello there'),
          `data: {"choices":[{"delta":{"content":"${'c'.repeat(4 * 1024)}`,
        ]),
      );
      const response = await ask(key.key, 'limits/bounded', form);
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe('Hello there');
      expectBrokenStream(form, answer, 502, 'The provider sent an event longer than 1 KiB.');
      const record = (await generation(response.headers.get('cf-ray')!, key.key))!;
      expect(record).toMatchObject({
        outcome: 'ended_early',
        finish_reason: 'error',
        completion_tokens: countTokens('Hello there'),
      });
      expect(toNanos(record.cost_usd)).toBe(
        record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
      );
      await expectReleased(key, 'limits/bounded', 'bounded');
    },
  );
});

describe('an upstream stream larger than the limit', () => {
  it('is cut mid-answer when it keeps sending text; the record charges the text delivered', async () => {
    const key = await spender();
    // Each event is a couple of hundred bytes: well past the limit in all, none near it alone.
    const words = Array.from({ length: 100 }, (_, index) => text(`word${index} `));
    // One by one, so the first words arrive before the limit is passed.
    fakes.bounded!.reply({ events: [ROLE, ...words, ...ending], eventIntervalMs: 5 });
    const response = await ask(key.key, 'limits/bounded');
    const answer = await readFormAnswer('chat_completions', response, true);
    expect(answer.text).toMatch(/^word0 word1 /);
    expect(answer.text.length).toBeLessThan(STREAM_LIMIT);
    expectBrokenStream(
      'chat_completions',
      answer,
      502,
      "Provider 'bounded' sent an answer the gateway cannot read: The provider sent a streamed answer longer than 8 KiB.",
    );
    const record = (await generation(response.headers.get('cf-ray')!, key.key))!;
    expect(record).toMatchObject({
      outcome: 'ended_early',
      finish_reason: 'error',
      usage_estimated: true,
      completion_tokens: countTokens(answer.text),
    });
    expect(toNanos(record.cost_usd)).toBe(
      record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
    );
    await expectReleased(key, 'limits/bounded', 'bounded');
  });

  it.each([
    {
      kind: 'openai-compatible',
      model: 'limits/bounded',
      fake: 'bounded',
      events: [
        ROLE,
        chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '' } }] }),
        ...Array.from({ length: 40 }, () =>
          chunk({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(500) } }] }),
        ),
      ],
    },
    {
      kind: 'anthropic',
      model: 'limits/bounded-ant',
      fake: 'bounded_ant',
      events: [
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n`,
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } })}\n\n`,
        ...Array.from(
          { length: 40 },
          () =>
            `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'x'.repeat(500) } })}\n\n`,
        ),
      ],
    },
  ])(
    'is refused when tool-call fragments that the $kind transform gathers keep coming',
    async ({ model, fake, events }) => {
      const key = await spender();
      const disconnects = fakes[fake]!.disconnects;
      fakes[fake]!.reply(thenHang(events));
      const response = await ask(key.key, model);
      const error = await errorOf('chat_completions', response);
      expect(error.status).toBe(502);
      expect(error.message).toBe(
        `Provider '${fake}' sent an answer the gateway cannot read: The provider sent a streamed answer longer than 8 KiB.`,
      );
      await expectHungUp(fake, disconnects);
      expect(await generation(response.headers.get('cf-ray')!, key.key)).toBeUndefined();
      expect(await gateway.gateway.parts.budget.reservedFor(key.id)).toBe(0);
      if (fake === 'bounded') await expectReleased(key, model, fake);
    },
  );
});

describe('first_event_ms', () => {
  // A role chunk, then only keep-alive comments, each of which restarts the idle timeout.
  const keepalivesOnly = () => thenHang([ROLE, ...Array.from({ length: 60 }, () => KEEPALIVE)], 50);

  it('ends a stream that only keeps its connection alive with a 504, and hangs up on it', async () => {
    const key = await spender();
    const disconnects = fakes.hushed!.disconnects;
    fakes.hushed!.reply(keepalivesOnly());
    const response = await ask(key.key, 'limits/first-event');
    const error = await errorOf('chat_completions', response);
    expect(error.status).toBe(504);
    expect(error.body).toMatchObject({ type: 'provider_error', stage: 'provider' });
    expect(error.message).toBe(
      "Provider 'hushed' timed out: The provider sent no part of its answer within 300 ms. Retry later.",
    );
    await expectHungUp('hushed', disconnects);
    expect(await generation(response.headers.get('cf-ray')!, key.key)).toBeUndefined();
    await expectReleased(key, 'limits/first-event', 'hushed');
  });

  it('falls back to the next provider of the model, as other timeouts do', async () => {
    const key = await spender();
    fakes.hushed!.reply(keepalivesOnly());
    fakes.steady!.reply(openaiStream());
    const response = await ask(key.key, 'limits/first-event-fallback');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-provider')).toBe('steady');
    const answer = await readFormAnswer('chat_completions', response, true);
    expect(answer).toMatchObject({ text: STREAMED_TEXT, cleanEnd: true });
    const record = (await generation(response.headers.get('cf-ray')!, key.key))!;
    expect(record.outcome).toBe('completed');
    expect(record.attempts?.map(({ provider, status }) => ({ provider, status }))).toEqual([
      { provider: 'hushed', status: 'first_event_timeout' },
      { provider: 'steady', status: 200 },
    ]);
  });
});

describe('total_ms', () => {
  it.each(
    PUBLIC_FORMS.map((form) => ({ form, filler: 'empty deltas', event: text('') })).concat({
      form: 'chat_completions',
      filler: 'keep-alive comments',
      event: KEEPALIVE,
    }),
  )(
    'ends a stream that sends its first token, then $filler forever, with the $form form’s error event',
    async ({ form, event }) => {
      const key = await spender();
      const disconnects = fakes.endless!.disconnects;
      fakes.endless!.reply(
        thenHang([ROLE, text('first token'), ...Array.from({ length: 100 }, () => event)], 50),
      );
      const response = await ask(key.key, 'limits/total', form);
      const answer = await readFormAnswer(form, response, true);
      expect(answer.text).toBe('first token');
      expectBrokenStream(
        form,
        answer,
        504,
        "Provider 'endless' timed out: The provider did not finish its answer within 700 ms.",
      );
      await expectHungUp('endless', disconnects);
      const record = (await generation(response.headers.get('cf-ray')!, key.key))!;
      expect(record).toMatchObject({
        outcome: 'ended_early',
        finish_reason: 'error',
        completion_tokens: countTokens('first token'),
      });
      expect(toNanos(record.cost_usd)).toBe(
        record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
      );
      await expectReleased(key, 'limits/total', 'endless');
    },
  );
});

/**
 * About 26 MB of text at once, far more than the sockets between the gateway and a client that
 * does not read can hold, so the gateway has to wait on the client.
 */
const FLOOD_PIECE = 'x'.repeat(64 * 1024);
const floodReply = (): FakeReply => ({
  events: [ROLE, ...Array.from({ length: 400 }, () => text(FLOOD_PIECE)), ...ending],
});
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('a client that reads slowly', () => {
  it('is cut at total_ms with an error that says why, and the provider is not blamed', async () => {
    const key = await spender();
    fakes.flood!.reply(floodReply());
    const response = await ask(key.key, 'limits/flood');
    expect(response.status).toBe(200);
    // The client reads nothing past twice the provider's total deadline.
    await sleep(3_500);
    const answer = await readFormAnswer('chat_completions', response, true);
    expect(answer.text.length).toBeGreaterThan(0);
    expect(answer.text.length).toBeLessThan(400 * FLOOD_PIECE.length);
    expectBrokenStream(
      'chat_completions',
      answer,
      504,
      "at twice the provider's limit of 1500 ms because the client read it slowly",
    );
    const record = await eventually(() => generation(response.headers.get('cf-ray')!, key.key));
    expect(record).toMatchObject({ outcome: 'ended_early', finish_reason: 'error' });
    // One failure counted would have taken the provider out of rotation for the next request.
    await expectReleased(key, 'limits/flood', 'flood');
  });

  it('is dropped when it reads nothing for the send timeout, and its request ends', async () => {
    const impatient = await startTestGateway({
      providers,
      settleIntervalMs: 600_000,
      maxConcurrentPerKey: 1,
      clientSendTimeoutMs: 500,
    });
    try {
      const key = await impatient.createKey({ kind: 'account', limitUsd: 1 });
      const askImpatient = () =>
        callForm(
          'chat_completions',
          impatient.url,
          key.key,
          'limits/flood',
          question('chat_completions'),
          { stream: true },
        );
      fakes.flood!.reply(floodReply());
      const response = await askImpatient();
      expect(response.status).toBe(200);
      const cfRay = response.headers.get('cf-ray')!;
      // Never read: the request ends by itself, recorded, and gives back what it held.
      const record = await eventually(async () => {
        const found = await getWithKey(`${impatient.url}/v1/generation?id=${cfRay}`, key.key);
        return found.status === 200 ? generationRecordSchema.parse(await found.json()) : undefined;
      }, 5_000);
      expect(record.outcome).toBe('ended_early');
      expect(await impatient.gateway.parts.budget.reservedFor(key.id)).toBe(0);
      await response.body?.cancel().catch(() => undefined);
      // The key's one slot is free again.
      fakes.flood!.reply(openaiStream());
      const next = await askImpatient();
      expect(next.status).toBe(200);
      expect((await readFormAnswer('chat_completions', next, true)).text).toBe(STREAMED_TEXT);
    } finally {
      await impatient.stop();
    }
  });
});
