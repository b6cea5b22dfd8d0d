/**
 * The Vercel AI SDK against the gateway, as its users point it: the OpenAI provider's chat model
 * asking for a structured object (AI SDK 7 has no `generateObject`: `generateText` with
 * `Output.object`), and the Google provider, whose paths are `/v1beta/{author}/{model}:{method}`
 * for a model id with a slash, plain and streamed, to a simulated model and to a Gemini upstream.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, Output, streamText } from 'ai';
import { z } from 'zod';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { fixtureEvents, fixtureJson, providersFileFor } from '../../testing/upstreams/upstream-kit';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let gemini: FakeUpstream;

beforeAll(async () => {
  gemini = await startFakeUpstream();
  const setup = providersFileFor(
    [
      {
        id: 'gem',
        kind: 'gemini',
        url: gemini.url,
        retry: { max_attempts: 1 },
        models: [
          {
            id: 'test/gem-model',
            upstreamModel: 'gemini-upstream-1',
            prompt: '0.0000001',
            completion: '0.000001',
          },
        ],
      },
    ],
    { includeSimulatedModels: true },
  );
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await gemini?.close();
});

describe('the AI SDK OpenAI provider (chat)', () => {
  it('gets a structured object from sim/chat-standard that validates against the zod schema', async () => {
    const schema = z.object({
      city: z.string(),
      celsius: z.number(),
      days: z.array(z.object({ day: z.number().int(), sunny: z.boolean() })),
      unit: z.enum(['metric', 'imperial']),
    });
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const result = await generateText({
      model: openai.chat('sim/chat-standard'),
      output: Output.object({ schema }),
      prompt: 'What is the weather in Paris this week?',
      maxRetries: 0,
    });
    // The SDK has parsed and validated it already; parsing again shows what it holds.
    expect(schema.parse(result.output)).toEqual({
      city: 'Paris',
      celsius: 42,
      days: [{ day: 42, sunny: true }],
      unit: 'metric',
    });
  });
});

describe('the AI SDK Google provider', () => {
  const google = () => createGoogleGenerativeAI({ baseURL: `${gateway.url}/v1beta`, apiKey: key });

  it('generates and streams text from a simulated model, by its catalog id', async () => {
    const plain = await generateText({
      model: google()('sim/chat-standard'),
      prompt: 'Tell me about the gateway',
      maxRetries: 0,
    });
    expect(plain.text).toMatch(/^You said: "Tell me about the gateway"\./);
    expect(plain.usage.outputTokens).toBeGreaterThan(0);

    const streamed = streamText({
      model: google()('sim/chat-standard'),
      prompt: 'Tell me about the gateway',
      maxRetries: 0,
    });
    expect(await streamed.text).toMatch(/^You said: "Tell me about the gateway"\./);
  });

  it('shows the simulated reasoner’s thoughts as reasoning', async () => {
    const result = await generateText({
      model: google()('sim/reasoner-large'),
      prompt: 'Weather in Paris?',
      maxOutputTokens: 2_000,
      maxRetries: 0,
    });
    expect(result.reasoningText).toMatch(/^The question is about Paris/);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('generates and streams text from a Gemini upstream', async () => {
    gemini.reply({ body: fixtureJson('gemini', 'gemini-text-response.json') });
    const plain = await generateText({
      model: google()('test/gem-model'),
      prompt: 'Hello',
      maxRetries: 0,
    });
    const recorded = fixtureJson('gemini', 'gemini-text-response.json') as {
      candidates: Array<{ content: { parts: Array<{ text: string }> } }>;
    };
    expect(plain.text).toBe(
      recorded.candidates[0]!.content.parts.map((part) => part.text).join(''),
    );
    expect(gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-upstream-1:generateContent');

    gemini.reply({ events: fixtureEvents('gemini', 'gemini-text.chunks.txt') });
    const streamed = streamText({
      model: google()('test/gem-model'),
      prompt: 'Hello',
      maxRetries: 0,
    });
    expect((await streamed.text).length).toBeGreaterThan(0);
    expect(gemini.requests.at(-1)!.path).toBe(
      '/v1beta/models/gemini-upstream-1:streamGenerateContent?alt=sse',
    );
  });

  it('reaches the same route under /v1, and a path that is not a model method is a 404', async () => {
    const v1 = createGoogleGenerativeAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const result = await generateText({
      model: v1('sim/chat-standard'),
      prompt: 'Tell me about the gateway',
      maxRetries: 0,
    });
    expect(result.text.length).toBeGreaterThan(0);
    const response = await fetch(`${gateway.url}/v1beta/sim/chat-standard:explode`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { status: string } }).error.status).toBe(
      'NOT_FOUND',
    );
  });
});
