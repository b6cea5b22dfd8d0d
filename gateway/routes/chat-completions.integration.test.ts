import net from 'node:net';
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  gatewayErrorBodySchema,
  modelEntrySchema,
  modelListSchema,
  type ChatCompletion,
} from '../../contract/gateway';
import { parseUsdToNanos } from '../shared/money';
import {
  chatBody,
  expectCfRay,
  postJson,
  readSseData,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let prices: Map<string, { prompt: number; completion: number }>;
let endpoint: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  endpoint = `${gateway.url}/v1/chat/completions`;
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
  const list = modelListSchema.parse(await (await fetch(`${gateway.url}/v1/models`)).json());
  prices = new Map(
    list.data.map((raw) => {
      const entry = modelEntrySchema.parse(raw);
      return [
        entry.id,
        {
          prompt: parseUsdToNanos(entry.pricing!.prompt!)!,
          completion: parseUsdToNanos(entry.pricing!.completion!)!,
        },
      ];
    }),
  );
});
afterAll(async () => {
  await gateway.stop();
});

async function complete(overrides: Record<string, unknown> = {}): Promise<ChatCompletion> {
  const response = await postJson(endpoint, chatBody(overrides), { key });
  expect(response.status, await response.clone().text()).toBe(200);
  expectCfRay(response);
  return chatCompletionSchema.parse(await response.json());
}

async function expectError(response: Response, status: number) {
  expect(response.status).toBe(status);
  const ray = expectCfRay(response);
  const body = gatewayErrorBodySchema.parse(await response.json());
  expect(body.request_id).toBe(ray);
  return body;
}

describe('POST /v1/chat/completions: validation', () => {
  it.each([
    ['a missing model', { messages: [{ role: 'user', content: 'hi' }] }, "'model'"],
    ['missing messages', { model: 'sim/chat-standard' }, "'messages'"],
    ['an empty messages array', { model: 'sim/chat-standard', messages: [] }, "'messages'"],
    [
      'a bad role',
      { model: 'sim/chat-standard', messages: [{ role: 'wizard', content: 'hi' }] },
      "'messages.0.role'",
    ],
    ['a fractional max_tokens', chatBody({ max_tokens: 1.5 }), "'max_tokens'"],
    ['a negative max_tokens', chatBody({ max_tokens: -3 }), "'max_tokens'"],
    ['a string max_tokens', chatBody({ max_tokens: 'ten' }), "'max_tokens'"],
  ])('answers 400 naming the field for %s', async (_case, body, field) => {
    const error = await expectError(await postJson(endpoint, body, { key }), 400);
    expect(error.type).toBe('invalid_request');
    expect(error.stage).toBe('validation');
    expect(error.error).toContain(field);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const error = await expectError(
      await postJson(endpoint, '{"model": "sim/chat-standard", ', { key }),
      400,
    );
    expect(error.error).toMatch(/not valid JSON/);
  });

  it('answers 400 for an empty body', async () => {
    const error = await expectError(await postJson(endpoint, '', { key }), 400);
    expect(error.error).toMatch(/empty/);
  });

  it('accepts content as a string or as an array of text parts', async () => {
    const asString = await complete({
      messages: [{ role: 'user', content: 'Tell me about tokens' }],
      seed: 5,
    });
    const asParts = await complete({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me about tokens' }] }],
      seed: 5,
    });
    expect(asParts.choices[0]!.message.content).toBe(asString.choices[0]!.message.content);
  });

  it('answers 404 for a model that is not in the catalog', async () => {
    const error = await expectError(
      await postJson(endpoint, chatBody({ model: 'sim/does-not-exist' }), { key }),
      404,
    );
    expect(error.type).toBe('model_not_found');
    expect(error.error).toContain('sim/does-not-exist');
  });
});

describe('POST /v1/chat/completions: body size limit', () => {
  let small: TestGateway;
  let smallKey: string;
  beforeAll(async () => {
    small = await startTestGateway({ maxBodyBytes: 2048 });
    smallKey = (await small.createKey({ kind: 'account' })).key;
  });
  afterAll(async () => {
    await small.stop();
  });

  it('answers 413 to a body over the limit and serves one under it', async () => {
    const url = `${small.url}/v1/chat/completions`;
    const big = chatBody({ messages: [{ role: 'user', content: 'word '.repeat(1000) }] });
    const error = await expectError(await postJson(url, big, { key: smallKey }), 413);
    expect(error.type).toBe('request_too_large');
    expect(error.error).toContain('2048');
    const fine = await postJson(url, chatBody(), { key: smallKey });
    expect(fine.status).toBe(200);
  });

  it('answers 413 to a chunked body that grows past the limit without declaring its length', async () => {
    const text = JSON.stringify(
      chatBody({ messages: [{ role: 'user', content: 'word '.repeat(1000) }] }),
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    const response = await fetch(`${small.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${smallKey}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const error = await expectError(response, 413);
    expect(error.type).toBe('request_too_large');
  });

  it('keeps the connection after a chunked body over the limit, for a client that sends it all before reading', async () => {
    // As Python's http.client sends a generator's body: chunked, whole, and only then reads. The
    // reader stops at the limit; the rest (within the bound) is discarded and the connection
    // carries the next request, instead of waiting for the keep-alive timeout.
    const { port } = new URL(small.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    const chunk = 'x'.repeat(1000);
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${smallKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `3e8\r\n${chunk}\r\n`.repeat(3),
    );
    // The rest arrives after the reader has stopped: it is what must still be read.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(`3e8\r\n${chunk}\r\n0\r\n\r\n`);
    const answers = () => received.split('HTTP/1.1 ').length - 1;
    while (answers() < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    socket.write(`GET /v1/models HTTP/1.1\r\nHost: gateway\r\n\r\n`);
    while (answers() < 2 && !socket.destroyed) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(received).toMatch(/HTTP\/1\.1 200 /);
    socket.destroy();
  });
});

describe('POST /v1/chat/completions: answers', () => {
  it('returns a chat completion whose usage.cost is the catalog price of its tokens', async () => {
    for (const model of [
      'sim/chat-standard',
      'sim/echo-mini',
      'sim/reasoner-large',
      'sim/chat-standard:batch',
    ]) {
      const completion = await complete({ model, max_tokens: 40 });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(model);
      expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{16}$/);
      const choice = completion.choices[0]!;
      expect(choice.index).toBe(0);
      expect(choice.message.role).toBe('assistant');
      expect(choice.message.content!.length).toBeGreaterThan(0);
      expect(['stop', 'length']).toContain(choice.finish_reason);
      const usage = completion.usage!;
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      const price = prices.get(model)!;
      expect(price.prompt).toBeGreaterThan(0);
      expect(toNanos(usage.cost!)).toBe(
        usage.prompt_tokens * price.prompt + usage.completion_tokens * price.completion,
      );
    }
  });

  it('charges nothing on a :free model', async () => {
    const completion = await complete({ model: 'sim/chat-standard:free' });
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage!.cost).toBe(0);
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const completion = await complete({ max_tokens: 5, seed: 1 });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.usage!.completion_tokens).toBe(5);
    const longer = await complete({ max_tokens: 4000, seed: 1 });
    expect(longer.choices[0]!.finish_reason).toBe('stop');
    expect(
      longer.choices[0]!.message.content!.startsWith(completion.choices[0]!.message.content!),
    ).toBe(true);
  });

  it('cuts the answer before a stop sequence', async () => {
    const full = (await complete({ max_tokens: 4000, seed: 9 })).choices[0]!.message.content!;
    const stop = full.slice(Math.floor(full.length / 2), Math.floor(full.length / 2) + 6);
    const stopped = await complete({ max_tokens: 4000, seed: 9, stop: [stop] });
    const text = stopped.choices[0]!.message.content!;
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    expect(text).toBe(full.slice(0, full.indexOf(stop)));
    expect(text).not.toContain(stop);
    const asString = await complete({ max_tokens: 4000, seed: 9, stop });
    expect(asString.choices[0]!.message.content).toBe(text);
  });

  it('gives the same text for the same seed and a different one for another seed', async () => {
    const first = await complete({ seed: 42, max_tokens: 200, temperature: 1 });
    const again = await complete({ seed: 42, max_tokens: 200, temperature: 1 });
    const other = await complete({ seed: 43, max_tokens: 200, temperature: 1 });
    expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(other.choices[0]!.message.content).not.toBe(first.choices[0]!.message.content);
  });

  it('is deterministic at temperature 0 without a seed', async () => {
    const first = await complete({ temperature: 0, max_tokens: 200 });
    const again = await complete({ temperature: 0, max_tokens: 200 });
    expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
  });

  it('calls a tool, then answers the tool result in text', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer' } },
            required: ['city'],
          },
        },
      },
    ];
    const user = { role: 'user', content: 'Weather in Paris please' };
    const first = await complete({ messages: [user], tools, max_tokens: 200 });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    expect(args.city).toEqual(expect.any(String));
    expect(args.days).toBe(42);
    expect(first.usage!.completion_tokens).toBeGreaterThan(0);

    const second = await complete({
      messages: [
        user,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temperature_c": 21}' },
      ],
      tools,
      max_tokens: 200,
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.tool_calls).toBeUndefined();
    expect(second.choices[0]!.message.content).toContain(
      'get_weather returned: {"temperature_c": 21}',
    );
  });

  const pixel =
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const imageMessage = {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: pixel } },
    ],
  };

  it('accepts image parts on sim/vision-pro', async () => {
    const completion = await complete({
      model: 'sim/vision-pro',
      messages: [imageMessage],
      max_tokens: 200,
    });
    expect(completion.choices[0]!.message.content).toContain('1 image (image/png)');
    const price = prices.get('sim/vision-pro')!;
    expect(toNanos(completion.usage!.cost!)).toBe(
      completion.usage!.prompt_tokens * price.prompt +
        completion.usage!.completion_tokens * price.completion,
    );
  });

  it('refuses image parts on a text-only model with 400', async () => {
    const error = await expectError(
      await postJson(endpoint, chatBody({ model: 'sim/chat-standard', messages: [imageMessage] }), {
        key,
      }),
      400,
    );
    expect(error.error).toMatch(/image/);
  });
});

describe('POST /v1/chat/completions: streaming', () => {
  async function stream(overrides: Record<string, unknown>) {
    const response = await postJson(endpoint, chatBody({ stream: true, ...overrides }), { key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ray = expectCfRay(response);
    const data = await readSseData(response);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data
      .slice(0, -1)
      .map((payload) => chatCompletionChunkSchema.parse(JSON.parse(payload)));
    return { ray, chunks };
  }

  it('streams chunks ending in data: [DONE], with usage and cost in the last chunk', async () => {
    const plain = await complete({ seed: 3, max_tokens: 60 });
    const { ray, chunks } = await stream({ seed: 3, max_tokens: 60 });
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    for (const chunk of chunks) {
      expect(chunk.id).toBe(`chatcmpl-${ray.slice(0, 16)}`);
      expect(chunk.model).toBe('sim/chat-standard');
    }
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(plain.choices[0]!.message.content);
    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe(plain.choices[0]!.finish_reason);
    expect(last.usage).toEqual(plain.usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage == null)).toBe(true);
  });

  it('with stream_options.include_usage, ends with a usage chunk that has no choices', async () => {
    const { chunks } = await stream({
      seed: 3,
      max_tokens: 20,
      stream_options: { include_usage: true },
    });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBe(20);
    expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + 20);
    const price = prices.get('sim/chat-standard')!;
    expect(toNanos(last.usage!.cost!)).toBe(
      last.usage!.prompt_tokens * price.prompt + 20 * price.completion,
    );
    const finishing = chunks.at(-2)!;
    expect(finishing.choices[0]!.finish_reason).toBe('length');
    expect(finishing.usage).toBeNull();
  });

  it('streams a tool call with finish_reason tool_calls', async () => {
    const { chunks } = await stream({
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
          },
        },
      ],
    });
    const call = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])[0]!;
    expect(call.index).toBe(0);
    expect(call.function?.name).toBe('lookup');
    expect(JSON.parse(call.function!.arguments!)).toEqual({ q: expect.any(String) });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });
});
