/** The official `openai` client against the running gateway: what callers really use. */
import OpenAI, { APIError, AuthenticationError } from 'openai';
import { cfRayPattern } from '../../contract/gateway';
import { startTestGateway, toNanos, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startTestGateway();
  const key = (await gateway.createKey({ kind: 'account', limitUsd: 50 })).key;
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.stop();
});

describe('the openai npm client', () => {
  it('creates a chat completion, with usage and cost', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({
        model: 'sim/chat-standard',
        messages: [{ role: 'user', content: 'Say hello' }],
        max_tokens: 12,
        seed: 7,
      })
      .withResponse();
    expect(response.headers.get('cf-ray')).toMatch(cfRayPattern);
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toEqual(expect.any(String));
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.usage!.completion_tokens).toBe(12);
    // The gateway's own `cost` field rides along in usage.
    const cost = (completion.usage as unknown as { cost: number }).cost;
    expect(toNanos(cost)).toBe(completion.usage!.prompt_tokens * 1_000 + 12 * 3_000);
  });

  it('streams a chat completion whose deltas add up to the plain answer, usage last', async () => {
    const plain = await client.chat.completions.create({
      model: 'sim/echo-mini',
      messages: [{ role: 'user', content: 'Stream please' }],
      seed: 11,
      max_tokens: 100,
    });
    const stream = await client.chat.completions.create({
      model: 'sim/echo-mini',
      messages: [{ role: 'user', content: 'Stream please' }],
      seed: 11,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finishReason: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(finishReason).toBe(plain.choices[0]!.finish_reason);
    expect(usage).toEqual(plain.usage);
  });

  it('lists the models', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'sim/chat-standard',
        'sim/chat-standard:free',
        'sim/chat-standard:batch',
      ]),
    );
  });

  it('raises AuthenticationError for an unknown key', async () => {
    const stranger = new OpenAI({
      apiKey: 'sk-unknown',
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const error = await stranger.chat.completions
      .create({ model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
  });

  it('raises an APIError with status 402 for an expired key', async () => {
    const expired = (await gateway.createKey({ kind: 'account', expiresAt: 1_000_000 })).key;
    const client402 = new OpenAI({ apiKey: expired, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const error = await client402.chat.completions
      .create({ model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(402);
    expect((error as APIError).headers?.get('cf-ray')).toMatch(cfRayPattern);
  });
});
