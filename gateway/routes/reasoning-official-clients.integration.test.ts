/**
 * The simulated reasoner through the vendors' official clients: each reads the reasoning the way
 * its vendor sends it (Anthropic thinking blocks with signatures, plain and streamed; Gemini
 * thought parts and thought signatures), and a conversation handed back as the client holds it
 * goes through again.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { openReasoning } from '../canonical/reasoning-signature';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  gateway = await startTestGateway();
  const key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  google = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
  });
});
afterAll(async () => {
  await gateway?.stop();
});

const SIGNED = /^gw1:simulated:sim-[0-9a-f]{8}$/;

describe('@anthropic-ai/sdk and the simulated reasoner', () => {
  it('reads a signed thinking block first, plain and streamed, and takes it back next turn', async () => {
    const request = {
      model: 'sim/reasoner-large',
      max_tokens: 2_000,
      thinking: { type: 'enabled' as const, budget_tokens: 1_024 },
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const plain = await anthropic.messages.create(request);
    const streamed = await anthropic.messages.stream(request).finalMessage();
    for (const message of [plain, streamed]) {
      const [thinking, text] = message.content;
      expect(thinking).toEqual({
        type: 'thinking',
        thinking: expect.stringMatching(/^The question is about Paris/),
        signature: expect.stringMatching(SIGNED),
      });
      expect(text?.type).toBe('text');
    }
    expect(streamed.content[0]).toEqual(plain.content[0]);
    const next = await anthropic.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: plain.content },
        { role: 'user', content: 'And tomorrow?' },
      ],
    });
    expect(next.content[0]?.type).toBe('thinking');
  });
});

describe('@google/genai and the simulated reasoner', () => {
  it('reads thought parts and the signature on the answer, plain and streamed', async () => {
    const request = {
      model: 'sim/reasoner-large',
      contents: 'Weather in Paris?',
      config: { maxOutputTokens: 2_000, thinkingConfig: { includeThoughts: true } },
    };
    const plain = await google.models.generateContent(request);
    const parts = plain.candidates![0]!.content!.parts!;
    expect(parts[0]).toEqual({
      text: expect.stringMatching(/^The question is about Paris/),
      thought: true,
    });
    // The signature rides on the answer with the thought's text sealed in (`sealReasoning`).
    expect(parts[1]).toEqual({ text: expect.any(String), thoughtSignature: expect.any(String) });
    expect(openReasoning(parts[1]!.thoughtSignature!)).toEqual({
      text: parts[0]!.text,
      signature: expect.stringMatching(SIGNED),
      keyId: expect.any(String),
    });
    // The SDK's text is the answer, without the thoughts.
    expect(plain.text).toBe(parts[1]!.text);
    expect(plain.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);

    let thoughts = '';
    let signature: string | undefined;
    for await (const chunk of await google.models.generateContentStream(request))
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (part.thought) thoughts += part.text;
        signature ??= part.thoughtSignature;
      }
    expect(thoughts).toBe(parts[0]!.text);
    expect(signature).toBe(parts[1]!.thoughtSignature);
  });
});
