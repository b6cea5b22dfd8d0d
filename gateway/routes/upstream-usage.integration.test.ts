/**
 * The counts an upstream reports are what the gateway charges, so they are read as a bill: over
 * real HTTP, against fake upstreams of each kind on loopback that report negative, fractional,
 * absurd or partial usage. A count that is not a whole number from 0 up is counted by the gateway
 * instead (and the record says the usage is estimated); no answer gives money back to a key.
 */
import { countTokens } from 'gpt-tokenizer';
import { balanceSchema, generationRecordSchema } from '../../contract/gateway';
import { loadTokenizer } from '../pipeline/usage-estimate';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { readFormAnswer, callForm } from '../../testing/upstreams/public-forms';
import { fixtureEvents, fixtureJson, providersFileFor } from '../../testing/upstreams/upstream-kit';
import {
  eventually,
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

const PROMPT_NANOS = 1_000;
const COMPLETION_NANOS = 2_000;
const QUESTION = 'Hello there';

const fakes = {} as Record<UpstreamKind, FakeUpstream>;
let gateway: TestGateway;

beforeAll(async () => {
  await loadTokenizer();
  for (const kind of ['openai-compatible', 'anthropic', 'gemini'] as const) {
    fakes[kind] = await startFakeUpstream();
  }
  const setup = providersFileFor(
    (['openai-compatible', 'anthropic', 'gemini'] as const).map((kind) => ({
      id: kind.replace('-', '_'),
      kind,
      url: fakes[kind].url,
      retry: { max_attempts: 1 },
      models: [
        {
          id: `usage/${kind}`,
          upstreamModel: `${kind}-model`,
          prompt: '0.000001',
          completion: '0.000002',
        },
        // The same upstream model with the prompt cache priced apart, as Anthropic bills it.
        {
          id: `cached/${kind}`,
          upstreamModel: `${kind}-model`,
          prompt: '0.000001',
          completion: '0.000002',
          cacheRead: '0.0000001',
          cacheWrite: '0.00000125',
        },
        // And with one-hour cache writes priced apart (twice the prompt price).
        {
          id: `cached-hour/${kind}`,
          upstreamModel: `${kind}-model`,
          prompt: '0.000001',
          completion: '0.000002',
          cacheRead: '0.0000001',
          cacheWrite: '0.00000125',
          cacheWriteHour: '0.000002',
        },
      ],
    })),
  );
  gateway = await startTestGateway({ providers: setup.providers, settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

/** A plain chat-completions request for one of the models, answered by `body`. */
async function askAnswered(
  kind: UpstreamKind,
  body: Record<string, unknown>,
  as: string,
  model = `usage/${kind}`,
) {
  fakes[kind].reply({ body });
  const response = await callForm(
    'chat_completions',
    gateway.url,
    as,
    model,
    { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
    { stream: false },
  );
  expect(response.status).toBe(200);
  const answer = await readFormAnswer('chat_completions', response, false);
  const record = await generationOf(response.headers.get('cf-ray')!, as);
  return { answer, record };
}

async function generationOf(cfRay: string, as: string) {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, as);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

/** Each kind's recorded plain answer, with its usage replaced by `counts`. */
function answerReporting(
  kind: UpstreamKind,
  counts: { prompt: unknown; completion: unknown } | 'prompt missing',
): { body: Record<string, unknown>; text: string } {
  switch (kind) {
    case 'openai-compatible': {
      const body = fixtureJson(kind, 'openai-text-response.json');
      body.usage =
        counts === 'prompt missing'
          ? { completion_tokens: 7 }
          : { prompt_tokens: counts.prompt, completion_tokens: counts.completion };
      return {
        body,
        text: 'The image shows a wooden boardwalk path running through a lush green field or meadow.',
      };
    }
    case 'anthropic': {
      const body = fixtureJson(kind, 'anthropic-text-response.json');
      body.usage =
        counts === 'prompt missing'
          ? { output_tokens: 7 }
          : { input_tokens: counts.prompt, output_tokens: counts.completion };
      return { body, text: 'Hi! My name is Claude.' };
    }
    case 'gemini': {
      const body = fixtureJson(kind, 'gemini-text-response.json');
      body.usageMetadata =
        counts === 'prompt missing'
          ? { candidatesTokenCount: 7 }
          : { promptTokenCount: counts.prompt, candidatesTokenCount: counts.completion };
      return { body, text: 'AI learns patterns from data to make predictions or decisions.' };
    }
  }
}

/** Each kind's recorded stream, its usage saying no completion tokens for the text it sends. */
function streamReportingNoCompletion(kind: UpstreamKind): {
  events: string[];
  text: string;
  prompt: number;
} {
  switch (kind) {
    case 'openai-compatible':
      return {
        events: fixtureEvents(kind, 'openai-text-stream.chunks.txt').map((event) =>
          event.replace('"completion_tokens":10', '"completion_tokens":0'),
        ),
        text: 'Hello! How can I assist you today?',
        prompt: 19,
      };
    case 'anthropic':
      return {
        events: fixtureEvents(kind, 'anthropic-text-stream.chunks.txt').map((event) =>
          event.replace(/"output_tokens": \d+/, '"output_tokens": 0'),
        ),
        text: 'Hello!',
        prompt: 25,
      };
    case 'gemini':
      return {
        events: fixtureEvents(kind, 'gemini-text.chunks.txt').map((event) =>
          event.replace(/"candidatesTokenCount": \d+/, '"candidatesTokenCount": 0'),
        ),
        text: 'Once upon a time, in a town nestled between rolling hills, lived a girl named Elara.',
        prompt: 8,
      };
  }
}

const KINDS: UpstreamKind[] = ['openai-compatible', 'anthropic', 'gemini'];

describe.each(KINDS)('usage reported by a %s upstream', (kind) => {
  it.each([
    { what: 'a negative prompt count', prompt: -1_000_000, completion: 5 },
    { what: 'a negative completion count', prompt: 5, completion: -1_000_000 },
    { what: 'fractional counts', prompt: 0.0005, completion: 0.0001 },
    { what: 'a count past any context window', prompt: 1e300, completion: 5 },
    { what: 'counts sent as text', prompt: '12', completion: '5' },
  ])('$what is counted by the gateway, never charged as sent', async ({ prompt, completion }) => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body, text } = answerReporting(kind, { prompt, completion });
    const { answer, record } = await askAnswered(kind, body, key);
    expect(answer.text).toBe(text);
    // Counts the gateway cannot bill are replaced by its own; a valid one is kept as sent.
    const counted = {
      prompt:
        Number.isSafeInteger(prompt) && (prompt as number) >= 0 ? prompt : countTokens(QUESTION),
      completion:
        Number.isSafeInteger(completion) && (completion as number) >= 0
          ? completion
          : countTokens(text),
    };
    expect(answer.usage).toEqual(counted);
    expect(record).toMatchObject({
      usage_estimated: true,
      prompt_tokens: counted.prompt,
      completion_tokens: counted.completion,
    });
    const cost = toNanos(record.cost_usd);
    expect(Number.isSafeInteger(cost)).toBe(true);
    expect(cost).toBe(
      (counted.prompt as number) * PROMPT_NANOS + (counted.completion as number) * COMPLETION_NANOS,
    );
    // Settled, the key has spent what it was charged: nothing was given back.
    await gateway.gateway.settlement.settleNow();
    const balance = balanceSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/balance`, key)).json(),
    );
    expect(toNanos(balance.consumption_usd)).toBe(cost);
    expect(toNanos(balance.remaining_usd)).toBe(toNanos(1) - cost);
  });

  it('a missing prompt count is counted by the gateway; the completion count is kept', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body } = answerReporting(kind, 'prompt missing');
    const { answer, record } = await askAnswered(kind, body, key);
    const counted = { prompt: countTokens(QUESTION), completion: 7 };
    expect(answer.usage).toEqual(counted);
    expect(record).toMatchObject({
      usage_estimated: true,
      prompt_tokens: counted.prompt,
      completion_tokens: 7,
    });
    expect(toNanos(record.cost_usd)).toBe(
      counted.prompt * PROMPT_NANOS + counted.completion * COMPLETION_NANOS,
    );
  });

  it('no completion tokens for text that was delivered is counted by the gateway, and the record says so', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body, text } = answerReporting(kind, { prompt: 31, completion: 0 });
    const { answer, record } = await askAnswered(kind, body, key);
    expect(answer.text).toBe(text);
    // The prompt count is the upstream's; the text it did deliver is not free.
    const counted = { prompt: 31, completion: countTokens(text) };
    expect(counted.completion).toBeGreaterThan(0);
    expect(answer.usage).toEqual(counted);
    expect(record).toMatchObject({
      usage_estimated: true,
      prompt_tokens: 31,
      completion_tokens: counted.completion,
    });
    expect(toNanos(record.cost_usd)).toBe(
      counted.prompt * PROMPT_NANOS + counted.completion * COMPLETION_NANOS,
    );
  });

  it('no completion tokens for a streamed text is counted by the gateway too', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { events, text, prompt } = streamReportingNoCompletion(kind);
    fakes[kind].reply({ events });
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      `usage/${kind}`,
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: true },
    );
    const answer = await readFormAnswer('chat_completions', response, true);
    expect(answer.text).toBe(text);
    const counted = { prompt, completion: countTokens(text) };
    expect(answer.usage).toEqual(counted);
    const record = await generationOf(response.headers.get('cf-ray')!, key);
    expect(record).toMatchObject({
      outcome: 'completed',
      usage_estimated: true,
      prompt_tokens: prompt,
      completion_tokens: counted.completion,
    });
    expect(toNanos(record.cost_usd)).toBe(
      counted.prompt * PROMPT_NANOS + counted.completion * COMPLETION_NANOS,
    );
  });

  it('whole counts from 0 up are charged as reported, and the record says so', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body } = answerReporting(kind, { prompt: 31, completion: 9 });
    const { answer, record } = await askAnswered(kind, body, key);
    expect(answer.usage).toEqual({ prompt: 31, completion: 9 });
    expect(record).toMatchObject({
      usage_estimated: false,
      prompt_tokens: 31,
      completion_tokens: 9,
    });
    expect(toNanos(record.cost_usd)).toBe(31 * PROMPT_NANOS + 9 * COMPLETION_NANOS);
  });
});

/** Each kind's recorded plain answer reporting 100 prompt tokens, 30 of them read from the
 * prompt cache (and, for Anthropic, 50 written to it), and 9 completion tokens. */
function answerWithCache(kind: UpstreamKind): Record<string, unknown> {
  switch (kind) {
    case 'openai-compatible': {
      const body = fixtureJson(kind, 'openai-text-response.json');
      body.usage = {
        prompt_tokens: 100,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 30 },
      };
      return body;
    }
    case 'anthropic': {
      const body = fixtureJson(kind, 'anthropic-text-response.json');
      // The vendor's input_tokens leaves the cached parts out: 20 + 50 + 30 = 100.
      body.usage = {
        input_tokens: 20,
        cache_creation_input_tokens: 50,
        cache_read_input_tokens: 30,
        output_tokens: 9,
      };
      return body;
    }
    case 'gemini': {
      const body = fixtureJson(kind, 'gemini-text-response.json');
      body.usageMetadata = {
        promptTokenCount: 100,
        cachedContentTokenCount: 30,
        candidatesTokenCount: 9,
      };
      return body;
    }
  }
}

describe.each(KINDS)('the prompt cache of a %s upstream', (kind) => {
  const written = kind === 'anthropic' ? 50 : 0;

  it('is charged at the cache prices the providers file sets, and the record says how much', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { answer, record } = await askAnswered(
      kind,
      answerWithCache(kind),
      key,
      `cached/${kind}`,
    );
    // 100 prompt tokens: 30 read at 100 nanos, `written` at 1,250, the rest at 1,000.
    const expected = (100 - 30 - written) * 1_000 + 30 * 100 + written * 1_250 + 9 * 2_000;
    expect(record).toMatchObject({
      usage_estimated: false,
      prompt_tokens: 100,
      completion_tokens: 9,
      cache_read_tokens: 30,
      cache_write_tokens: written,
    });
    expect(toNanos(record.cost_usd)).toBe(expected);
    expect(toNanos(answer.costUsd!)).toBe(expected);
  });

  it('is charged at the prompt price where the file sets no cache price', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { record } = await askAnswered(kind, answerWithCache(kind), key);
    expect(record).toMatchObject({ cache_read_tokens: 30, cache_write_tokens: written });
    expect(toNanos(record.cost_usd)).toBe(100 * 1_000 + 9 * 2_000);
  });
});

/** A plain answer of 9 completion tokens, 6 of them spent reasoning, as each vendor reports it. */
function answerWithReasoning(kind: 'openai-compatible' | 'gemini'): Record<string, unknown> {
  if (kind === 'openai-compatible') {
    const body = fixtureJson(kind, 'openai-text-response.json');
    body.usage = {
      prompt_tokens: 31,
      completion_tokens: 9,
      completion_tokens_details: { reasoning_tokens: 6 },
    };
    return body;
  }
  const body = fixtureJson(kind, 'gemini-text-response.json');
  // Gemini counts the thoughts apart from the candidates: 3 + 6 = 9 completion tokens.
  body.usageMetadata = { promptTokenCount: 31, candidatesTokenCount: 3, thoughtsTokenCount: 6 };
  return body;
}

describe.each(['openai-compatible', 'gemini'] as const)(
  'reasoning reported by a %s upstream',
  (kind) => {
    it('is charged as completion, and the record says how much of it there was', async () => {
      const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      const { record } = await askAnswered(kind, answerWithReasoning(kind), key);
      expect(record).toMatchObject({
        usage_estimated: false,
        prompt_tokens: 31,
        completion_tokens: 9,
        reasoning_tokens: 6,
      });
      expect(toNanos(record.cost_usd)).toBe(31 * PROMPT_NANOS + 9 * COMPLETION_NANOS);
    });
  },
);

it('reasoning past the completion charged is held to it, as the completion is', async () => {
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  const body = fixtureJson('openai-compatible', 'openai-text-response.json');
  // More than the request's max_tokens (200), nearly all of it reasoning.
  body.usage = {
    prompt_tokens: 31,
    completion_tokens: 500,
    completion_tokens_details: { reasoning_tokens: 450 },
  };
  const { record } = await askAnswered('openai-compatible', body, key);
  expect(record).toMatchObject({ completion_tokens: 200, reasoning_tokens: 200 });
  expect(record.charge_capped).toBe(true);
});

it('an upstream that reports no reasoning leaves the record’s count at 0', async () => {
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  const { body } = answerReporting('anthropic', { prompt: 31, completion: 9 });
  const { record } = await askAnswered('anthropic', body, key);
  expect(record.reasoning_tokens).toBe(0);
});

describe('one-hour cache writes of an anthropic upstream', () => {
  // Of the 50 tokens written, 30 to a one-hour entry and 20 to a five-minute one.
  const byLifetime = { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 30 };
  // 20 uncached at 1,000, 30 read at 100, 20 five-minute writes at 1,250, 30 one-hour at 2,000.
  const expected = 20 * 1_000 + 30 * 100 + 20 * 1_250 + 30 * 2_000 + 9 * 2_000;

  it('are charged at the one-hour price, and the record and the Messages usage say how many', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const body = answerWithCache('anthropic');
    (body.usage as Record<string, unknown>).cache_creation = byLifetime;
    const { answer, record } = await askAnswered('anthropic', body, key, 'cached-hour/anthropic');
    expect(record).toMatchObject({ cache_write_tokens: 50, cache_write_1h_tokens: 30 });
    expect(toNanos(record.cost_usd)).toBe(expected);
    expect(toNanos(answer.costUsd!)).toBe(expected);

    fakes.anthropic.reply({ body });
    const messages = await callForm('messages', gateway.url, key, 'cached-hour/anthropic', {
      max_tokens: 200,
      messages: [{ role: 'user', content: QUESTION }],
    });
    const usage = ((await messages.json()) as { usage: Record<string, unknown> }).usage;
    expect(usage).toMatchObject({ cache_creation_input_tokens: 50, cache_creation: byLifetime });
  });

  it('are charged the same in a stream, where message_start reports them', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const events = fixtureEvents('anthropic', 'anthropic-text-stream.chunks.txt').map((event) =>
      event.replace(
        '"usage": {"input_tokens": 25, "output_tokens": 1}',
        `"usage": {"input_tokens": 20, "cache_read_input_tokens": 30, "cache_creation_input_tokens": 50, "cache_creation": ${JSON.stringify(byLifetime)}, "output_tokens": 1}`,
      ),
    );
    expect(events.join('')).toContain('ephemeral_1h_input_tokens');
    fakes.anthropic.reply({
      events: events.map((event) => event.replace('"output_tokens": 15', '"output_tokens": 9')),
    });
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      'cached-hour/anthropic',
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: true },
    );
    await readFormAnswer('chat_completions', response, true);
    const record = await generationOf(response.headers.get('cf-ray')!, key);
    expect(record).toMatchObject({ prompt_tokens: 100, cache_write_1h_tokens: 30 });
    expect(toNanos(record.cost_usd)).toBe(expected);
  });

  it('are charged at the cache-write price where the file sets no one-hour price', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const body = answerWithCache('anthropic');
    (body.usage as Record<string, unknown>).cache_creation = byLifetime;
    const { record } = await askAnswered('anthropic', body, key, 'cached/anthropic');
    expect(record.cache_write_1h_tokens).toBe(30);
    expect(toNanos(record.cost_usd)).toBe(20 * 1_000 + 30 * 100 + 50 * 1_250 + 9 * 2_000);
  });
});

describe('the prompt cache as each form shows it', () => {
  it('a Messages client gets the vendor’s split: input_tokens without the cached parts', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    fakes.anthropic.reply({ body: answerWithCache('anthropic') });
    const response = await callForm('messages', gateway.url, key, 'cached/anthropic', {
      max_tokens: 200,
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { usage: Record<string, unknown> };
    expect(answer.usage).toMatchObject({
      input_tokens: 20,
      cache_creation_input_tokens: 50,
      cache_read_input_tokens: 30,
      output_tokens: 9,
    });
  });

  it('a chat-completions client gets prompt_tokens_details.cached_tokens', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    fakes.anthropic.reply({ body: answerWithCache('anthropic') });
    const response = await callForm('chat_completions', gateway.url, key, 'cached/anthropic', {
      max_tokens: 200,
      messages: [{ role: 'user', content: QUESTION }],
    });
    const answer = (await response.json()) as { usage: Record<string, unknown> };
    expect(answer.usage).toMatchObject({
      prompt_tokens: 100,
      prompt_tokens_details: { cached_tokens: 30 },
    });
  });

  it('the catalog lists the cache prices', async () => {
    const response = await getWithKey(
      `${gateway.url}/v1/models`,
      (await gateway.createKey({ kind: 'account', limitUsd: 1 })).key,
    );
    const list = (await response.json()) as {
      data: Array<{ id: string; pricing: Record<string, string> }>;
    };
    expect(list.data.find((model) => model.id === 'cached/anthropic')!.pricing).toMatchObject({
      input_cache_read: '0.0000001',
      input_cache_write: '0.00000125',
    });
    expect(list.data.find((model) => model.id === 'cached-hour/anthropic')!.pricing).toMatchObject({
      input_cache_write_1h: '0.000002',
    });
    expect(list.data.find((model) => model.id === 'usage/anthropic')!.pricing).not.toHaveProperty(
      'input_cache_read',
    );
  });
});

describe('an answer that ends without its finish', () => {
  it('is charged the prompt the upstream counted at its start, and the delivered text', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    // message_start (input_tokens 25), content_block_start, ping, "Hello", "!", then the cut.
    fakes.anthropic.reply({
      events: fixtureEvents('anthropic', 'anthropic-text-stream.chunks.txt'),
      fault: 'reset_mid',
      cutAfter: 6,
    });
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      'usage/anthropic',
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: true },
    );
    const answer = await readFormAnswer('chat_completions', response, true);
    expect(answer.text).toBe('Hello!');
    expect(answer.cleanEnd).toBe(false);
    const record = await generationOf(response.headers.get('cf-ray')!, key);
    // The gateway's own count of "Hello there" would be 2: the upstream's 25 is what it billed.
    const completion = countTokens('Hello!');
    expect(record).toMatchObject({
      outcome: 'ended_early',
      usage_estimated: true,
      prompt_tokens: 25,
      completion_tokens: completion,
    });
    expect(toNanos(record.cost_usd)).toBe(25 * PROMPT_NANOS + completion * COMPLETION_NANOS);
  });

  it('is charged the same way when the client leaves mid-stream', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    fakes.anthropic.reply({
      events: fixtureEvents('anthropic', 'anthropic-text-stream.chunks.txt'),
      eventIntervalMs: 150,
    });
    const disconnects = fakes.anthropic.disconnects;
    const leave = new AbortController();
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      'usage/anthropic',
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: true, signal: leave.signal },
    );
    const cfRay = response.headers.get('cf-ray')!;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('Hello')) received += decoder.decode((await reader.read()).value);
    leave.abort();
    await reader.cancel().catch(() => undefined);
    const record = await eventually(async () => {
      const found = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
      return found.status === 200 ? generationRecordSchema.parse(await found.json()) : undefined;
    });
    expect(record).toMatchObject({
      outcome: 'ended_early',
      usage_estimated: true,
      prompt_tokens: 25,
    });
    // The upstream saw the client leave: its request was aborted, not read to its end.
    await eventually(() => (fakes.anthropic.disconnects === disconnects + 1 ? true : undefined));
  });
});

/** Each kind's recorded stream, and the first text a chat-completions client sees of it. */
const RECORDED_STREAMS: Record<UpstreamKind, { fixture: string; firstText: string }> = {
  'openai-compatible': { fixture: 'openai-text-stream.chunks.txt', firstText: 'Hello' },
  anthropic: { fixture: 'anthropic-text-stream.chunks.txt', firstText: 'Hello' },
  gemini: { fixture: 'gemini-text.chunks.txt', firstText: 'Once' },
};

describe.each(KINDS)('a client that leaves a %s upstream’s answer', (kind) => {
  /** Resolves once the key's reservation is given back (the pipeline does so as it winds down). */
  const released = (keyId: string) =>
    eventually(async () =>
      (await gateway.gateway.parts.budget.reservedFor(keyId)) === 0 ? true : undefined,
    );

  it('mid-stream: the upstream request is aborted at once, and the reservation released', async () => {
    const { key, id } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { fixture, firstText } = RECORDED_STREAMS[kind];
    fakes[kind].reply({ events: fixtureEvents(kind, fixture), eventIntervalMs: 150 });
    const disconnects = fakes[kind].disconnects;
    const leave = new AbortController();
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      `usage/${kind}`,
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: true, signal: leave.signal },
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes(firstText)) received += decoder.decode((await reader.read()).value);
    expect(await gateway.gateway.parts.budget.reservedFor(id)).toBeGreaterThan(0);
    leave.abort();
    await reader.cancel().catch(() => undefined);
    // The fake's stream has more events to send, 150 ms apart: only an abort ends it this soon.
    await eventually(() => (fakes[kind].disconnects === disconnects + 1 ? true : undefined));
    await released(id);
    const record = await eventually(async () => {
      const found = await getWithKey(
        `${gateway.url}/v1/generation?id=${response.headers.get('cf-ray')}`,
        key,
      );
      return found.status === 200 ? generationRecordSchema.parse(await found.json()) : undefined;
    });
    expect(record.outcome).toBe('ended_early');
  });

  it('before a plain answer came: the upstream request is aborted, and nothing is held or charged', async () => {
    const { key, id } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    let answerNow = () => {};
    const { body } = answerReporting(kind, { prompt: 31, completion: 9 });
    fakes[kind].reply({ body, holdUntil: new Promise<void>((resolve) => (answerNow = resolve)) });
    const disconnects = fakes[kind].disconnects;
    const requests = fakes[kind].requests.length;
    const leave = new AbortController();
    const sent = callForm(
      'chat_completions',
      gateway.url,
      key,
      `usage/${kind}`,
      { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
      { stream: false, signal: leave.signal },
    ).catch((error: unknown) => error);
    // The upstream has the request and holds its answer; the key's worst case is reserved.
    await eventually(() => (fakes[kind].requests.length === requests + 1 ? true : undefined));
    expect(await gateway.gateway.parts.budget.reservedFor(id)).toBeGreaterThan(0);
    leave.abort();
    expect(await sent).toMatchObject({ name: 'AbortError' });
    await eventually(() => (fakes[kind].disconnects === disconnects + 1 ? true : undefined));
    await released(id);
    answerNow();
    await gateway.gateway.settlement.settleNow();
    const balance = balanceSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/balance`, key)).json(),
    );
    expect(balance.consumption_usd).toBe(0);
  });
});
