/**
 * Embeddings against the simulated model, through the clients callers use: the `openai` client
 * (floats, and base64 which it asks for by default), the AI SDK's `embed` and `embedMany`, and
 * `@google/genai`; the 400s for the wrong kind of model on every route; and the money: one
 * record per request, priced per input token, and the key states that refuse with 402.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { ApiError, GoogleGenAI } from '@google/genai';
import { embed, embedMany } from 'ai';
import OpenAI from 'openai';
import { cfRayPattern } from '../../contract/gateway';
import { simulatedEmbedding } from '../providers/simulated/embedding';
import { simulatedModels } from '../providers/simulated/models';
import {
  bearer,
  chatBody,
  postJson,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

const MODEL = 'sim/embed-small';
const PRICE_NANOS = simulatedModels.find((model) => model.id === MODEL)!.promptNanos;

let gateway: TestGateway;
let key: string;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.stop();
});

const google = (apiKey = key) =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } } });

async function generation(id: string) {
  const response = await fetch(`${gateway.url}/v1/generation?id=${id}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('POST /v1/embeddings with the openai client', () => {
  it('answers floats in OpenAI’s shape, with cf-ray, usage and one record at the prompt price', async () => {
    const input = ['The gateway reserves first.', 'Then it settles.'];
    const { data: answer, response } = await openai.embeddings
      .create({ model: MODEL, input, encoding_format: 'float' })
      .withResponse();
    const cfRay = response.headers.get('cf-ray')!;
    expect(cfRay).toMatch(cfRayPattern);
    expect(answer).toMatchObject({ object: 'list', model: MODEL });
    expect(answer.data.map((item) => [item.object, item.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    expect(answer.data[0]!.embedding).toEqual(simulatedEmbedding(input[0]!));
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens);

    const record = await generation(cfRay);
    expect(record).toMatchObject({
      form: 'embeddings',
      model: MODEL,
      provider: 'simulated',
      prompt_tokens: answer.usage.prompt_tokens,
      completion_tokens: 0,
      outcome: 'completed',
      usage_estimated: false,
    });
    expect(toNanos(record.cost_usd as number)).toBe(answer.usage.prompt_tokens * PRICE_NANOS);
    // The answer's own cost field is the record's, as on chat completions.
    expect((answer.usage as unknown as { cost: number }).cost).toBe(record.cost_usd);
  });

  it('sends base64 (little-endian float32) when asked, which the client decodes by default', async () => {
    const text = 'base64 please';
    const raw = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: MODEL, input: text, encoding_format: 'base64' },
      { key },
    );
    expect(raw.status).toBe(200);
    const encoded = ((await raw.json()) as { data: Array<{ embedding: string }> }).data[0]!
      .embedding;
    const bytes = Buffer.from(encoded, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) =>
      bytes.readFloatLE(index * 4),
    );
    const expected = simulatedEmbedding(text);
    expect(decoded).toHaveLength(expected.length);
    decoded.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 6));

    // Without encoding_format the client asks for base64 and decodes it itself.
    const viaClient = await openai.embeddings.create({ model: MODEL, input: text });
    viaClient.data[0]!.embedding.forEach((value, index) =>
      expect(value).toBeCloseTo(expected[index]!, 6),
    );
  });

  it('takes token ids and dimensions', async () => {
    const answer = await openai.embeddings.create({
      model: MODEL,
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      dimensions: 32,
      encoding_format: 'float',
    });
    expect(answer.data.map((item) => item.embedding.length)).toEqual([32, 32]);
    expect(answer.usage.prompt_tokens).toBe(5);
    const single = await openai.embeddings.create({
      model: MODEL,
      input: [7, 8, 9],
      encoding_format: 'float',
    });
    expect(single.data).toHaveLength(1);
  });

  it('makes 2,048 inputs one request and one record', async () => {
    const input = Array.from({ length: 2_048 }, (_, index) => `document ${index}`);
    const { data: answer, response } = await openai.embeddings
      .create({ model: MODEL, input, encoding_format: 'float' })
      .withResponse();
    expect(answer.data).toHaveLength(2_048);
    const record = await generation(response.headers.get('cf-ray')!);
    expect(record.prompt_tokens).toBe(answer.usage.prompt_tokens);
    const listed = await fetch(`${gateway.url}/v1/generations?limit=200`, { headers: bearer(key) });
    const ids = ((await listed.json()) as { data: Array<{ id: string }> }).data.map(
      (entry) => entry.id,
    );
    expect(ids.filter((id) => id === response.headers.get('cf-ray'))).toHaveLength(1);
  });

  it('refuses a chat model with a 400 naming the chat route, in the chat error shape', async () => {
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: 'sim/chat-standard', input: 'hi' },
      { key },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; type: string; request_id: string };
    expect(body.type).toBe('invalid_request');
    expect(body.error).toContain('/v1/chat/completions');
    expect(body.request_id).toBe(response.headers.get('cf-ray'));
  });

  it('refuses more than 2,048 inputs and empty inputs, naming the field', async () => {
    for (const input of [Array.from({ length: 2_049 }, () => 'x'), '', ['a', '']]) {
      const response = await postJson(
        `${gateway.url}/v1/embeddings`,
        { model: MODEL, input },
        {
          key,
        },
      );
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain("'input");
    }
  });
});

describe('an embedding model on the chat routes', () => {
  it('is refused with a 400 naming the embeddings routes, in each form', async () => {
    const chat = await postJson(`${gateway.url}/v1/chat/completions`, chatBody({ model: MODEL }), {
      key,
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: string }).error).toContain('POST /v1/embeddings');

    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(messages.status).toBe(400);
    expect(JSON.stringify(await messages.json())).toContain('POST /v1/embeddings');

    const generate = google().models.generateContent({ model: MODEL, contents: 'hi' });
    await expect(generate).rejects.toBeInstanceOf(ApiError);
    await expect(generate).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(':embedContent'),
    });
  });
});

describe('the AI SDK', () => {
  it('embeds one value and many with embed and embedMany', async () => {
    const provider = createOpenAI({ apiKey: key, baseURL: `${gateway.url}/v1` });
    const model = provider.embeddingModel(MODEL);
    const one = await embed({ model, value: 'sunny day at the beach', maxRetries: 0 });
    expect(one.embedding).toEqual(simulatedEmbedding('sunny day at the beach'));
    expect(one.usage.tokens).toBeGreaterThan(0);
    const many = await embedMany({
      model,
      values: ['rainy day in the city', 'sunny day at the beach'],
      maxRetries: 0,
    });
    expect(many.embeddings).toHaveLength(2);
    expect(many.embeddings[1]).toEqual(one.embedding);
  });
});

describe('the Gemini form', () => {
  it('embeds one content and several with @google/genai models.embedContent', async () => {
    const one = await google().models.embedContent({ model: MODEL, contents: 'hello there' });
    expect(one.embeddings).toHaveLength(1);
    expect(one.embeddings![0]!.values).toEqual(simulatedEmbedding('hello there'));
    const several = await google().models.embedContent({
      model: MODEL,
      contents: ['first text', 'second text'],
      config: { outputDimensionality: 16 },
    });
    expect(several.embeddings!.map((item) => item.values!.length)).toEqual([16, 16]);
    expect(several.embeddings![1]!.values).toEqual(simulatedEmbedding('second text', 16));
  });

  it('answers embedContent with one content as one embedding, with the key as ?key=', async () => {
    const path = `/v1beta/models/${MODEL}:embedContent?key=${encodeURIComponent(key)}`;
    const single = await postJson(`${gateway.url}${path}`, {
      content: { parts: [{ text: 'one' }] },
    });
    expect(single.status).toBe(200);
    expect(await single.json()).toEqual({ embedding: { values: simulatedEmbedding('one') } });
    const record = await generation(single.headers.get('cf-ray')!);
    expect(record).toMatchObject({ form: 'gemini', model: MODEL, completion_tokens: 0 });

    const several = await postJson(`${gateway.url}${path}`, {
      contents: [{ parts: [{ text: 'one' }] }, { parts: [{ text: 'two' }] }],
    });
    expect(((await several.json()) as { embeddings: unknown[] }).embeddings).toHaveLength(2);
  });

  it('refuses a chat model, and a key that cannot pay, in the Gemini error shape', async () => {
    const wrongKind = google().models.embedContent({ model: 'sim/chat-standard', contents: 'x' });
    await expect(wrongKind).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('INVALID_ARGUMENT'),
    });
    const empty = await gateway.createKey({ kind: 'account', limitUsd: 0 });
    await expect(
      google(empty.key).models.embedContent({ model: MODEL, contents: 'x' }),
    ).rejects.toMatchObject({
      status: 402,
      message: expect.stringContaining('FAILED_PRECONDITION'),
    });
  });
});

describe('key states', () => {
  it('refuses an empty, expired or disabled key with 402, as chat does', async () => {
    const empty = await gateway.createKey({ kind: 'account', limitUsd: 0 });
    const expired = await gateway.createKey({ kind: 'account', limitUsd: 1, expiresAt: 1_000 });
    const disabled = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    await gateway.gateway.admin.setDisabled(disabled.id, true);
    await gateway.refreshKeys();
    for (const issued of [empty, expired, disabled]) {
      const response = await postJson(
        `${gateway.url}/v1/embeddings`,
        { model: MODEL, input: 'x' },
        { key: issued.key },
      );
      expect(response.status).toBe(402);
    }
  });

  it('refuses what the budget cannot reserve, and reserves nothing past it', async () => {
    // Enough for a few tokens at the prompt price, not for this input.
    const small = await gateway.createKey({ kind: 'account', limitUsd: 0.000_000_5 });
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: MODEL, input: 'word '.repeat(200) },
      { key: small.key },
    );
    expect(response.status).toBe(402);
  });
});
