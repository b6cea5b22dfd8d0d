/**
 * Errors a client can print: the vendors' official clients (`openai`, `@anthropic-ai/sdk`,
 * `@google/genai`) must carry the gateway's own message in the error they throw, for a refused
 * field, an unknown model and a bad key, plain and streamed. Gemini CLI printed `[object Object]`
 * for a 400 once; it reads `@google/genai`'s message as JSON and prints `error.message`, so that
 * must be the gateway's text.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
});

/** What the gateway says, read straight from its answer, to compare the clients against. */
async function gatewayMessage(
  path: string,
  headers: Record<string, string>,
  body: unknown,
  read: (json: any) => unknown, // eslint-disable-line @typescript-eslint/no-explicit-any
): Promise<string> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeGreaterThanOrEqual(400);
  const message = read(await response.json());
  expect(typeof message).toBe('string');
  return message as string;
}

async function thrown(run: () => Promise<unknown>): Promise<Error & { status?: number }> {
  try {
    await run();
  } catch (error) {
    return error as Error & { status?: number };
  }
  throw new Error('expected the client to throw');
}

const UNKNOWN_MODEL = 'sim/does-not-exist';

describe('the openai client', () => {
  const client = (apiKey = key) =>
    new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const cases = [
    {
      name: 'a refused field',
      status: 400,
      body: { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }], top_p: 7 },
    },
    {
      name: 'an unknown model',
      status: 404,
      body: { model: UNKNOWN_MODEL, messages: [{ role: 'user', content: 'hi' }] },
    },
  ];

  it.each(cases)('shows the gateway’s message for $name', async ({ status, body }) => {
    const expected = await gatewayMessage(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}` },
      body,
      (json) => json.error,
    );
    const error = await thrown(() =>
      client().chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(status);
    expect(error.message).toContain(expected);
    // Streamed requests fail before the stream starts, the same way.
    const streamed = await thrown(async () => {
      const stream = await client().chat.completions.create({
        ...(body as OpenAI.ChatCompletionCreateParamsNonStreaming),
        stream: true,
      });
      for await (const _chunk of stream) void _chunk;
    });
    expect(streamed.message).toContain(expected);
  });

  it('shows the gateway’s message for a bad key', async () => {
    const error = await thrown(() =>
      client('sk-not-a-key').chat.completions.create({
        model: 'sim/chat-standard',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.message.length).toBeGreaterThan('401 '.length + 10);
  });
});

describe('the @anthropic-ai/sdk client', () => {
  const client = (apiKey = key) => new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
  const cases = [
    {
      name: 'a refused field',
      status: 400,
      errorClass: Anthropic.BadRequestError,
      body: {
        model: 'sim/chat-standard',
        max_tokens: 10,
        temperature: 3,
        messages: [{ role: 'user', content: 'hi' }],
      },
    },
    {
      name: 'an unknown model',
      status: 404,
      errorClass: Anthropic.NotFoundError,
      body: { model: UNKNOWN_MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    },
  ];

  it.each(cases)('shows the gateway’s message for $name', async ({ status, errorClass, body }) => {
    const expected = await gatewayMessage(
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body,
      (json) => json.error.message,
    );
    const error = await thrown(() =>
      client().messages.create(body as Anthropic.MessageCreateParamsNonStreaming),
    );
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    expect(error.message).toContain(expected);
    const streamed = await thrown(async () => {
      const stream = client().messages.stream(body as Anthropic.MessageCreateParamsNonStreaming);
      await stream.finalMessage();
    });
    expect(streamed.message).toContain(expected);
  });

  it('shows the gateway’s message for a bad key', async () => {
    const error = await thrown(() =>
      client('sk-not-a-key').messages.create({
        model: 'sim/chat-standard',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.message).toContain('authentication_error');
  });
});

describe('the @google/genai client', () => {
  const client = (apiKey = key) =>
    new GoogleGenAI({
      apiKey,
      httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
    });
  const cases = [
    {
      name: 'a refused field',
      status: 400,
      model: 'sim/chat-standard',
      config: { temperature: 7 },
    },
    { name: 'an unknown model', status: 404, model: UNKNOWN_MODEL, config: {} },
  ];

  /** How Gemini CLI reads the client's error: its message is the body, as JSON. */
  const cliMessage = (error: Error) =>
    (JSON.parse(error.message.slice(error.message.indexOf('{'))) as { error: { message: unknown } })
      .error.message;

  it.each(cases)('shows the gateway’s message for $name', async ({ status, model, config }) => {
    const expected = await gatewayMessage(
      `/v1beta/models/${model}:generateContent`,
      { 'x-goog-api-key': key },
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: config },
      (json) => json.error.message,
    );
    const request = { model, contents: 'hi', config };
    const error = await thrown(() => client().models.generateContent(request));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    expect(cliMessage(error)).toBe(expected);
    const streamed = await thrown(async () => {
      for await (const _chunk of await client().models.generateContentStream(request)) void _chunk;
    });
    expect(streamed).toBeInstanceOf(ApiError);
    expect(cliMessage(streamed)).toBe(expected);
  });

  it('shows the gateway’s message for a bad key', async () => {
    const error = await thrown(() =>
      client('not-a-key').models.generateContent({ model: 'sim/chat-standard', contents: 'hi' }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(401);
    expect(typeof cliMessage(error)).toBe('string');
  });
});
