/**
 * Thinking that survives tool loops toward an Anthropic upstream that keeps the vendor's rules
 * (`testing/upstreams/vendor-rules.ts`: the last tool-call turn must start with the thinking block it
 * signed, byte for byte), whatever form the client speaks: the Responses form as Codex sends it
 * (the reasoning item's `encrypted_content` only), the Gemini form as Gemini CLI sends it (the
 * `thoughtSignature` only), chat completions as OpenCode and the AI SDK's OpenAI-compatible
 * provider send it (`reasoning_content` text only). Where nothing can restore the block, the
 * turn goes without thinking and says so, rather than meet the vendor's 400.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { GoogleGenAI } from '@google/genai';
import { stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { textReply, toolCallReply } from '../../testing/agents/vendor-replies';
import { anthropicThinkingRules, signThinking } from '../../testing/upstreams/vendor-rules';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { providersFileFor } from '../../testing/upstreams/upstream-kit';
import { postJson, startTestGateway, type TestGateway } from '../../testing/gateway-support';

const MODEL = 'test/ant-thinking';
const THOUGHT = 'The user wants the weather; I should call get_weather for Paris.';
const weather = { id: 'toolu_think_1', name: 'get_weather', args: { city: 'Paris' } };

let fake: FakeUpstream;
let gateway: TestGateway;
let key: string;
let otherKey: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.refuse = anthropicThinkingRules;
  const setup = providersFileFor([
    {
      id: 'ant-think',
      kind: 'anthropic',
      url: fake.url,
      retry: { max_attempts: 1 },
      models: [
        {
          id: MODEL,
          upstreamModel: 'claude-upstream-1',
          prompt: '0.000003',
          completion: '0.000015',
          maxCompletionTokens: 16_000,
          supportedParameters: ['max_tokens', 'tools', 'tool_choice', 'reasoning'],
        },
      ],
    },
  ]);
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  otherKey = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
});

type Block = { type: string; thinking?: string; signature?: string };
type Message = { role: string; content: Block[] | string };

/** The blocks of the last assistant turn the upstream got, and whether thinking was on. */
function lastUpstreamTurn() {
  const body = fake.requests.at(-1)!.body as { thinking?: unknown; messages: Message[] };
  const assistant = body.messages.findLast((message) => message.role === 'assistant');
  return { thinking: body.thinking, blocks: (assistant?.content ?? []) as Block[] };
}

const signedThought = { type: 'thinking', thinking: THOUGHT, signature: signThinking(THOUGHT) };

/** A streamed Responses answer (the agents stream, and the test replies are streams), whole. */
async function streamedResponse(
  client: OpenAI,
  body: OpenAI.Responses.ResponseCreateParamsNonStreaming,
) {
  const { data: stream, response } = await client.responses
    .create({ ...body, stream: true })
    .withResponse();
  for await (const event of stream)
    if (event.type === 'response.completed') return { data: event.response, response };
  throw new Error('The stream ended without response.completed');
}

describe('the Responses form, as Codex sends it back', () => {
  const openai = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const request = {
    model: MODEL,
    reasoning: { effort: 'high' as const },
    include: ['reasoning.encrypted_content' as const],
    store: false,
    tools: [
      {
        type: 'function' as const,
        name: 'get_weather',
        strict: false,
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  };

  /** Turn 1 (a thought, then a call), and turn 2's input as Codex builds it: item, call, output. */
  async function firstTurn(callId?: string) {
    fake.reply(toolCallReply('anthropic', weather, THOUGHT), textReply('anthropic', 'Sunny.'));
    const { data } = await streamedResponse(openai(), { ...request, input: 'Weather in Paris?' });
    const [reasoning, call] = data.output as [
      OpenAI.Responses.ResponseReasoningItem,
      OpenAI.Responses.ResponseFunctionToolCall,
    ];
    const id = callId ?? call.call_id;
    // Codex keeps the item but not its summary: the envelope alone must carry the text.
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        type: 'reasoning',
        id: reasoning.id,
        summary: [],
        encrypted_content: reasoning.encrypted_content,
      },
      { ...call, id: undefined, call_id: id } as never,
      { type: 'function_call_output', call_id: id, output: 'Sunny, 21°C' },
    ];
    return { reasoning, input };
  }

  it('gives the upstream its thinking block back from encrypted_content alone', async () => {
    // Renamed: nothing the gateway remembered of the call can restore the block.
    const { reasoning, input } = await firstTurn('call_renamed');
    expect(reasoning.encrypted_content).toMatch(/^gwr1:/);
    const { data: second } = await streamedResponse(openai(), { ...request, input });
    expect(JSON.stringify(second.output)).toContain('Sunny.');
    expect(lastUpstreamTurn().blocks[0]).toEqual(signedThought);
  });

  it('does not hand one key’s reasoning to another key: that turn goes without thinking', async () => {
    const { input } = await firstTurn();
    const other = new OpenAI({ apiKey: otherKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const { data, response } = await streamedResponse(other, { ...request, input });
    expect(JSON.stringify(data.output)).toContain('Sunny.');
    const turn = lastUpstreamTurn();
    expect(turn.thinking).toBeUndefined();
    expect(turn.blocks.map((block) => block.type)).toEqual(['tool_use']);
    expect(response.headers.get('x-gateway-adjusted-params')).toBe('reasoning=on->off');
  });
});

describe('the Gemini form, as Gemini CLI sends it back', () => {
  it('gives the upstream its thinking block back from thoughtSignature alone', async () => {
    fake.reply(toolCallReply('anthropic', weather, THOUGHT), textReply('anthropic', 'Sunny.'));
    const google = new GoogleGenAI({
      apiKey: key,
      httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
    });
    const config = {
      thinkingConfig: { includeThoughts: true, thinkingBudget: 4_096 },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
        },
      ],
    };
    const user = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
    const parts = [];
    const firstStream = await google.models.generateContentStream({
      model: MODEL,
      contents: [user],
      config,
    });
    for await (const chunk of firstStream)
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    expect(parts[0]).toMatchObject({ text: THOUGHT, thought: true });
    const call = parts.find((part) => part.functionCall)!;
    expect(call.thoughtSignature).toMatch(/^gwr1:/);
    // Gemini CLI keeps the call with its signature and leaves the thought parts out.
    const secondStream = await google.models.generateContentStream({
      model: MODEL,
      config,
      contents: [
        user,
        { role: 'model', parts: [call] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { output: 'Sunny' } } }],
        },
      ],
    });
    let text = '';
    for await (const chunk of secondStream) text += chunk.text ?? '';
    expect(text).toBe('Sunny.');
    expect(lastUpstreamTurn().blocks[0]).toEqual(signedThought);
  });
});

describe('chat completions, as OpenCode and the AI SDK send reasoning_content back', () => {
  it('runs a tool loop with thinking on, the block restored from what the gateway kept', async () => {
    fake.reply(toolCallReply('anthropic', weather, THOUGHT), textReply('anthropic', 'Sunny.'));
    const provider = createOpenAICompatible({
      name: 'gateway',
      baseURL: `${gateway.url}/v1`,
      apiKey: key,
    });
    const before = fake.requests.length;
    const result = streamText({
      model: provider.chatModel(MODEL),
      prompt: 'Weather in Paris?',
      providerOptions: { gateway: { reasoningEffort: 'high' } },
      tools: {
        get_weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `Sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('Sunny.');
    expect(fake.requests.length - before).toBe(2);
    // What the SDK sent back: the reasoning's text, no signature.
    const turn = lastUpstreamTurn();
    expect(turn.thinking).toMatchObject({ type: 'enabled' });
    expect(turn.blocks.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(turn.blocks[0]).toEqual(signedThought);
  });

  it('turns thinking off for a turn nothing can restore, and says so', async () => {
    fake.reply(textReply('anthropic', 'Sunny.'));
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      {
        model: MODEL,
        reasoning_effort: 'high',
        stream: true,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: '',
            reasoning_content: THOUGHT,
            tool_calls: [
              {
                id: 'call_never_seen',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_never_seen', content: 'Sunny' },
        ],
      },
      { key },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Sunny.');
    expect(response.headers.get('x-gateway-adjusted-params')).toBe('reasoning_effort=on->off');
    const turn = lastUpstreamTurn();
    expect(turn.thinking).toBeUndefined();
    expect(turn.blocks.map((block) => block.type)).toEqual(['tool_use']);
  });
});
