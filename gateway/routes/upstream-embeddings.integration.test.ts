/**
 * Embeddings through real upstream kinds, on loopback fakes: an openai-compatible upstream
 * (`POST /v1/embeddings`) and a gemini upstream (`:batchEmbedContents`), each reached from both
 * public forms. The outgoing request is asserted (path, model, the upstream's own key, inputs),
 * big requests are split to each upstream's batch limit with their usage summed, and Gemini's
 * missing counts are the gateway's, marked estimated.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { openAiCompatibleAdapter } from '../providers/openai-compatible';
import { createUpstreamProvider } from '../providers/upstream/upstream-provider';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { providersFileFor, type UpstreamSetup } from '../../testing/upstreams/upstream-kit';
import { bearer, startTestGateway, toNanos, type TestGateway } from '../../testing/gateway-support';

const OPENAI_MODEL = 'openai/text-embedding-3-small';
const GEMINI_MODEL = 'google/gemini-embedding-001';
const PROMPT_PRICE = '0.00000002';

let openaiUpstream: FakeUpstream;
let geminiUpstream: FakeUpstream;
let setup: UpstreamSetup;
let gateway: TestGateway;
let key: string;
let openai: OpenAI;
let google: GoogleGenAI;

beforeAll(async () => {
  openaiUpstream = await startFakeUpstream();
  geminiUpstream = await startFakeUpstream();
  const embedding = {
    prompt: PROMPT_PRICE,
    completion: '0',
    contextLength: 8_192,
    inputModalities: ['text' as const],
    outputModalities: ['embeddings' as const],
    supportedParameters: ['dimensions'],
  };
  setup = providersFileFor([
    {
      id: 'openai-up',
      kind: 'openai-compatible',
      url: openaiUpstream.url,
      models: [{ id: OPENAI_MODEL, upstreamModel: 'text-embedding-3-small', ...embedding }],
    },
    {
      id: 'gemini-up',
      kind: 'gemini',
      url: geminiUpstream.url,
      models: [{ id: GEMINI_MODEL, upstreamModel: 'gemini-embedding-001', ...embedding }],
    },
  ]);
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  google = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await openaiUpstream?.close();
  await geminiUpstream?.close();
});
beforeEach(() => {
  openaiUpstream.requests.length = 0;
  geminiUpstream.requests.length = 0;
});

/** A vector per input that says which input it was for. */
const vectorFor = (index: number) => [index, 0.5, -0.5];

/** OpenAI's answer for `count` inputs, listed out of order (clients sort by index). */
const openAiAnswer = (count: number, promptTokens: number) => ({
  body: {
    object: 'list',
    data: Array.from({ length: count }, (_, index) => ({
      object: 'embedding',
      index,
      embedding: vectorFor(index),
    })).reverse(),
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  },
});

const geminiAnswer = (count: number, offset = 0) => ({
  body: {
    embeddings: Array.from({ length: count }, (_, index) => ({
      values: vectorFor(offset + index),
    })),
  },
});

async function generation(id: string) {
  const response = await fetch(`${gateway.url}/v1/generation?id=${id}`, { headers: bearer(key) });
  return (await response.json()) as Record<string, unknown>;
}

describe('an openai-compatible upstream', () => {
  it('gets the upstream model, its own key and the inputs; the answer keeps their order', async () => {
    openaiUpstream.reply(openAiAnswer(2, 9));
    const { data: answer, response } = await openai.embeddings
      .create({ model: OPENAI_MODEL, input: ['alpha', 'beta'], dimensions: 3, user: 'u-1' })
      .withResponse();
    expect(answer.data.map((item) => item.embedding)).toEqual([vectorFor(0), vectorFor(1)]);
    // The upstream's count, charged at the provider's price (9 × $0.00000002).
    expect(answer.usage).toEqual({ prompt_tokens: 9, total_tokens: 9, cost: 9 * 0.00000002 });
    const sent = openaiUpstream.requests[0]!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.headers.authorization).toBe(`Bearer ${setup.upstreamKeys['openai-up']}`);
    expect(JSON.stringify(sent.headers)).not.toContain(key);
    expect(sent.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta'],
      encoding_format: 'float',
      dimensions: 3,
      user: 'u-1',
    });
    const record = await generation(response.headers.get('cf-ray')!);
    expect(record).toMatchObject({
      form: 'embeddings',
      provider: 'openai-up',
      prompt_tokens: 9,
      usage_estimated: false,
    });
    expect(toNanos(record.cost_usd as number)).toBe(9 * 20);
  });

  it('splits a batch past 2,048 inputs into calls of 2,048 and 2, usage summed', async () => {
    // The public forms take at most 2,048 inputs (OpenAI's own bound), so the provider is
    // driven directly here, as the pipeline drives it.
    openaiUpstream.reply(openAiAnswer(2_048, 4_096), openAiAnswer(2, 4));
    const config = setup.providers.upstream.find((provider) => provider.id === 'openai-up')!;
    const provider = createUpstreamProvider(config, openAiCompatibleAdapter);
    try {
      const inputs = Array.from({ length: 2_050 }, (_, index) => `text ${index}`);
      const result = await provider.embed!(
        { model: OPENAI_MODEL, inputs, dimensions: null },
        config.models[0]!,
        new AbortController().signal,
      );
      expect(result.promptTokens).toBe(4_100);
      expect(result.vectors).toHaveLength(2_050);
      expect(result.vectors[2_049]).toEqual(vectorFor(1));
      expect(
        openaiUpstream.requests.map((request) => (request.body.input as unknown[]).length),
      ).toEqual([2_048, 2]);
      expect(openaiUpstream.requests[1]!.body.input).toEqual(['text 2048', 'text 2049']);
    } finally {
      await provider.close();
    }
  });

  it('is reached from the Gemini form', async () => {
    openaiUpstream.reply(openAiAnswer(3, 6));
    const answer = await google.models.embedContent({
      model: OPENAI_MODEL,
      contents: ['one', 'two', 'three'],
    });
    expect(answer.embeddings!.map((item) => item.values)).toEqual([0, 1, 2].map(vectorFor));
    expect(openaiUpstream.requests[0]!.body.input).toEqual(['one', 'two', 'three']);
  });
});

describe('a gemini upstream', () => {
  it('gets batchEmbedContents with its own key; the gateway counts the tokens, marked estimated', async () => {
    geminiUpstream.reply(geminiAnswer(2));
    const { data: answer, response } = await openai.embeddings
      .create({ model: GEMINI_MODEL, input: ['hello world', 'good night'], dimensions: 3 })
      .withResponse();
    expect(answer.data.map((item) => item.embedding)).toEqual([vectorFor(0), vectorFor(1)]);
    const sent = geminiUpstream.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(sent.headers['x-goog-api-key']).toBe(setup.upstreamKeys['gemini-up']);
    expect(sent.body).toEqual({
      requests: ['hello world', 'good night'].map((text) => ({
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text }] },
        outputDimensionality: 3,
      })),
    });
    // o200k: "hello world" and "good night" are two tokens each.
    expect(answer.usage.prompt_tokens).toBe(4);
    const record = await generation(response.headers.get('cf-ray')!);
    expect(record).toMatchObject({
      form: 'embeddings',
      provider: 'gemini-up',
      prompt_tokens: 4,
      usage_estimated: true,
    });
    expect(toNanos(record.cost_usd as number)).toBe(4 * 20);
  });

  it('splits 250 inputs from the Gemini form into batches of 100, 100 and 50, in order', async () => {
    geminiUpstream.reply(geminiAnswer(100, 0), geminiAnswer(100, 100), geminiAnswer(50, 200));
    const texts = Array.from({ length: 250 }, (_, index) => `text ${index}`);
    const response = await fetch(
      `${gateway.url}/v1beta/models/${GEMINI_MODEL}:batchEmbedContents`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify({
          requests: texts.map((text) => ({
            model: `models/${GEMINI_MODEL}`,
            content: { parts: [{ text }] },
          })),
        }),
      },
    );
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { embeddings: Array<{ values: number[] }> };
    expect(answer.embeddings.map((item) => item.values[0])).toEqual(texts.map((_, index) => index));
    const batches = geminiUpstream.requests.map(
      (request) => (request.body.requests as unknown[]).length,
    );
    expect(batches).toEqual([100, 100, 50]);
    const record = await generation(response.headers.get('cf-ray')!);
    expect(record).toMatchObject({ form: 'gemini', usage_estimated: true });
    // "text", " ", and the number: each input is at least two tokens.
    expect(record.prompt_tokens as number).toBeGreaterThanOrEqual(500);
  });

  it('refuses token ids with a 400 naming the provider, and sends nothing', async () => {
    const response = await fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify({ model: GEMINI_MODEL, input: [1, 2, 3] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("'gemini-up'");
    expect(geminiUpstream.requests).toHaveLength(0);
  });
});
