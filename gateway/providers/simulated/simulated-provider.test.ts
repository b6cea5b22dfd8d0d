import { z } from 'zod';
import type { CanonicalEvent, CanonicalRequest } from '../../canonical/model';
import { countPromptTokens, tokenize } from '../../canonical/token-count';
import { subjectOf } from './answer-plan';
import { simulatedModels } from './models';
import { createSimulatedProvider } from './simulated-provider';

const model = simulatedModels.find((candidate) => candidate.id === 'sim/chat-standard')!;

const request = (overrides: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: model.id,
  system: null,
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Tell me about the gateway' }] }],
  maxTokens: null,
  temperature: 1,
  topP: null,
  stop: [],
  seed: 1,
  tools: [],
  toolChoice: 'auto',
  stream: false,
  ...overrides,
});

async function collect(events: AsyncIterable<CanonicalEvent>) {
  let text = '';
  const deltas: string[] = [];
  const all: CanonicalEvent[] = [];
  for await (const event of events) {
    all.push(event);
    if (event.type === 'text-delta') {
      deltas.push(event.text);
      text += event.text;
    }
  }
  const finish = all.find((event) => event.type === 'finish');
  return { text, deltas, all, finish: finish?.type === 'finish' ? finish : undefined };
}

const fast = createSimulatedProvider({ tokensPerSecond: 0, entropy: () => 0.5 });
const run = (overrides: Partial<CanonicalRequest> = {}, signal = new AbortController().signal) =>
  collect(fast.stream(request(overrides), model.routes[0]!, signal));

describe('the simulated provider', () => {
  it('is deterministic for a seed and differs between seeds', async () => {
    const first = await run({ seed: 7 });
    expect((await run({ seed: 7 })).text).toBe(first.text);
    expect((await run({ seed: 8 })).text).not.toBe(first.text);
    // A different provider instance gives the same text for the same seed.
    const other = createSimulatedProvider({ tokensPerSecond: 0, entropy: () => 0.1 });
    expect(
      (
        await collect(
          other.stream(request({ seed: 7 }), model.routes[0]!, new AbortController().signal),
        )
      ).text,
    ).toBe(first.text);
  });

  it('is deterministic at temperature 0 without a seed, and varies with entropy otherwise', async () => {
    const zero = await run({ seed: null, temperature: 0 });
    const entropyA = createSimulatedProvider({ tokensPerSecond: 0, entropy: () => 0.2 });
    const entropyB = createSimulatedProvider({ tokensPerSecond: 0, entropy: () => 0.7 });
    const signal = new AbortController().signal;
    expect(
      (
        await collect(
          entropyA.stream(request({ seed: null, temperature: 0 }), model.routes[0]!, signal),
        )
      ).text,
    ).toBe(zero.text);
    const a = await collect(
      entropyA.stream(request({ seed: null, temperature: 0.8 }), model.routes[0]!, signal),
    );
    const b = await collect(
      entropyB.stream(request({ seed: null, temperature: 0.8 }), model.routes[0]!, signal),
    );
    expect(a.text).not.toBe(b.text);
  });

  it('streams one token per event and finishes with usage', async () => {
    const result = await run({ maxTokens: 4000 });
    expect(result.deltas.length).toBeGreaterThan(10);
    expect(result.deltas).toEqual(tokenize(result.text));
    expect(result.finish).toEqual({
      type: 'finish',
      finishReason: 'stop',
      stopSequence: null,
      usage: { promptTokens: countPromptTokens(request()), completionTokens: result.deltas.length },
    });
    expect(result.text).toMatch(/^You said: "Tell me about the gateway"\./);
  });

  it('honours max_tokens with finish reason length', async () => {
    const full = await run();
    const cut = await run({ maxTokens: 6 });
    expect(cut.deltas).toHaveLength(6);
    expect(cut.finish?.finishReason).toBe('length');
    expect(cut.finish?.usage?.completionTokens).toBe(6);
    expect(full.text.startsWith(cut.text)).toBe(true);
  });

  it('asks for a length with "N words"', async () => {
    const long = await run({
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'write 400 words' }] }],
      maxTokens: 4000,
    });
    expect(long.deltas.length).toBeGreaterThan(400);
  });

  it('answers in Markdown where the prompt asks for it, and in prose otherwise', async () => {
    const ask = (text: string) =>
      run({ messages: [{ role: 'user', parts: [{ type: 'text', text }] }], maxTokens: 4000 });
    const all = (await ask('Explain Gateways in markdown, please.')).text;
    expect(all).toMatch(/^## About Gateways$/m);
    expect(all).toMatch(/^- .+$/m);
    expect(all).toMatch(/^```ts\n[\s\S]+\n```$/m);
    expect(all).toMatch(/^\| what \| how the gateway handles it \|\n\| --- \| --- \|$/m);
    const table = (await ask('Compare the options in a table.')).text;
    expect(table).toContain('| --- | --- |');
    expect(table).not.toContain('```');
    expect(table).not.toMatch(/^## /m);
    const prose = (await ask('Tell me about gateways.')).text;
    expect(prose).not.toMatch(/^(## |- |```|\| )/m);
  });

  it('stops before the earliest stop sequence, without sending it', async () => {
    const full = await run();
    const words = full.text.split(' ');
    const later = words[12]!;
    const earlier = words[6]!;
    const cut = await run({ stop: [` ${later}`, ` ${earlier}`] });
    const [first, second] = [` ${later}`, ` ${earlier}`].map((sequence) => ({
      sequence,
      index: full.text.indexOf(sequence),
    }));
    const earliest = first!.index < second!.index ? first! : second!;
    expect(cut.text).toBe(full.text.slice(0, earliest.index));
    expect(cut.finish).toMatchObject({
      finishReason: 'stop_sequence',
      stopSequence: earliest.sequence,
    });
    expect(cut.finish?.usage?.completionTokens).toBe(cut.deltas.length);
    // A stop sequence that never occurs changes nothing.
    expect((await run({ stop: ['zzz-not-there'] })).text).toBe(full.text);
  });

  it.each([
    ['What is the weather in Paris today?', 'Paris'],
    ['Tell me about the gateway', 'gateway'],
    ['hi', 'example'],
  ])('fills a string argument from %j with %j', (text, expected) => {
    expect(subjectOf(text)).toBe(expected);
  });

  it('calls the first tool with arguments shaped by its schema, and answers a tool result in text', async () => {
    const tools = [
      {
        name: 'search',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string' },
            limit: { type: 'integer' },
            exact: { type: 'boolean' },
            mode: { enum: ['fast', 'slow'] },
          },
        },
      },
      { name: 'other', parameters: {} },
    ];
    const called = await run({ tools });
    expect(called.deltas).toEqual([]);
    const call = called.all[0]!;
    expect(call).toMatchObject({ type: 'tool-call', name: 'search' });
    expect(call.type === 'tool-call' && call.id).toMatch(/^call_[0-9a-f]{12}$/);
    expect(JSON.parse(call.type === 'tool-call' ? call.arguments : '')).toEqual({
      query: 'gateway',
      limit: 42,
      exact: true,
      mode: 'fast',
    });
    expect(called.finish?.finishReason).toBe('tool_calls');
    expect(called.finish?.usage?.completionTokens).toBeGreaterThan(0);

    expect((await run({ tools, toolChoice: { name: 'other' } })).all[0]).toMatchObject({
      name: 'other',
    });
    expect((await run({ tools, toolChoice: 'none' })).finish?.finishReason).toBe('stop');

    const answered = await run({
      tools,
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'find it' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_1', name: 'search', arguments: '{}' }],
        },
        {
          role: 'tool',
          parts: [
            { type: 'tool_result', toolCallId: 'call_1', name: 'search', content: 'three results' },
          ],
        },
      ],
    });
    expect(answered.finish?.finishReason).toBe('stop');
    expect(answered.text).toMatch(/^The tool search returned: three results\./);
  });

  it('streams as fast as it can at rate 0, to the end even when the request streams', async () => {
    const streamed = await run({ stream: true, maxTokens: 4000 });
    const plain = await run({ maxTokens: 4000 });
    expect(streamed.text).toBe(plain.text);
    expect(streamed.finish?.finishReason).toBe('stop');
  });

  it('sends nothing when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run({ stream: true }, controller.signal);
    expect(result.deltas).toEqual([]);
    expect(result.finish).toBeUndefined();
  });

  it('paces a stream at a rate > 0 and stops, without a finish event, as soon as it is aborted', async () => {
    // Two tokens a second: the whole answer would outlast the test's timeout unless the abort ends the wait.
    const slow = createSimulatedProvider({ tokensPerSecond: 2 });
    const controller = new AbortController();
    const deltas: string[] = [];
    let finished = false;
    for await (const event of slow.stream(
      request({ stream: true }),
      model.routes[0]!,
      controller.signal,
    )) {
      if (event.type === 'finish') finished = true;
      if (event.type === 'text-delta') {
        deltas.push(event.text);
        if (deltas.length === 2) setTimeout(() => controller.abort(), 10);
      }
    }
    expect(finished).toBe(false);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.length).toBeLessThan(5);
  });

  it('does not pace a request that does not stream', async () => {
    const slow = createSimulatedProvider({ tokensPerSecond: 1 });
    const result = await collect(
      slow.stream(request({ maxTokens: 4000 }), model.routes[0]!, new AbortController().signal),
    );
    expect(result.deltas.length).toBeGreaterThan(20);
    expect(result.finish?.finishReason).toBe('stop');
  });
});

describe('the simulated provider: structured outputs and reasoning', () => {
  const reasoner = simulatedModels.find((candidate) => candidate.id === 'sim/reasoner-large')!;
  const schema = {
    type: 'object',
    properties: {
      city: { type: 'string' },
      temperature: { type: 'number' },
      days: { type: 'array', items: { type: 'integer', minimum: 1 } },
    },
    required: ['city', 'temperature', 'days'],
    additionalProperties: false,
  };

  it('answers a json_schema request with JSON that validates against the schema', async () => {
    const result = await run({
      responseFormat: { type: 'json_schema', name: 'weather', schema, strict: true },
      maxTokens: 4000,
    });
    const answer: unknown = JSON.parse(result.text);
    const check = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(check.safeParse(answer).success).toBe(true);
    expect(result.finish?.usage?.completionTokens).toBe(result.deltas.length);
  });

  it('answers a json_object request with a JSON object', async () => {
    const result = await run({ responseFormat: { type: 'json_object' }, maxTokens: 4000 });
    expect(JSON.parse(result.text)).toEqual(
      expect.objectContaining({ answer: expect.any(String) }),
    );
  });

  it('makes a reasoning model think first, signed, with its tokens counted in the completion', async () => {
    const events = [];
    for await (const event of fast.stream(
      request({ model: reasoner.id, maxTokens: 2000 }),
      reasoner.routes[0]!,
      new AbortController().signal,
    ))
      events.push(event);
    const reasoning = events.filter((event) => event.type === 'reasoning-delta');
    const text = events.filter((event) => event.type === 'text-delta');
    expect(reasoning.length).toBeGreaterThan(5);
    // The reasoning comes before the answer, and its signature closes it.
    expect(events.indexOf(reasoning.at(-1)!)).toBeLessThan(events.indexOf(text[0]!));
    expect(reasoning.at(-1)).toEqual({
      type: 'reasoning-delta',
      text: '',
      signature: expect.stringMatching(/^gw1:simulated:sim-[0-9a-f]{8}$/),
    });
    const thought = reasoning.filter((event) => event.text !== '').length;
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      usage: { completionTokens: thought + text.length, reasoningTokens: thought },
    });
  });

  it('leaves the reasoning text out when the client does not want it, and a non-reasoning model never reasons', async () => {
    const hidden = [];
    for await (const event of fast.stream(
      request({
        model: reasoner.id,
        reasoning: { effort: 'low', budgetTokens: null, includeText: false },
      }),
      reasoner.routes[0]!,
      new AbortController().signal,
    ))
      hidden.push(event);
    expect(hidden.filter((event) => event.type === 'reasoning-delta')).toEqual([
      { type: 'reasoning-delta', text: '', signature: expect.any(String) },
    ]);
    expect(hidden.at(-1)).toMatchObject({ usage: { reasoningTokens: expect.any(Number) } });
    const plain = await run({
      reasoning: { effort: 'high', budgetTokens: null, includeText: true },
    });
    expect(plain.all.some((event) => event.type === 'reasoning-delta')).toBe(false);
  });
});
