/**
 * The clients that speak only the Responses form by default, unmodified, against the gateway on
 * simulated models: the Vercel AI SDK's `createOpenAI(...)(model)` and the OpenAI Agents SDK.
 * Each runs a tool round to its final answer.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, Runner, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { OpenAIProvider } from '@openai/agents-openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { getWithKey, startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  setTracingDisabled(true);
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 50 })).key;
});
afterAll(async () => {
  await gateway.stop();
});

/** The forms of the key's records, newest first. */
async function recordedForms(): Promise<string[]> {
  const response = await getWithKey(`${gateway.url}/v1/generations?limit=20`, key);
  const page = (await response.json()) as { data: Array<{ form: string }> };
  return page.data.map((record) => record.form);
}

describe('the Vercel AI SDK, createOpenAI(...)(model)', () => {
  const weather = tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  });

  it('generates text, running a tool and answering after it', async () => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const result = await generateText({
      model: openai('sim/chat-standard'),
      prompt: 'What is the weather in Paris?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(result.steps.length).toBe(2);
    expect(result.steps[0]!.toolCalls.map((call) => call.toolName)).toEqual(['weather']);
    expect(result.steps[0]!.toolResults[0]!.output).toEqual(
      expect.objectContaining({ celsius: 21 }),
    );
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.totalUsage.outputTokens).toBeGreaterThan(0);
    expect((await recordedForms()).slice(0, 2)).toEqual(['responses', 'responses']);
  });

  it('streams text', async () => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const result = streamText({
      model: openai('sim/echo-mini'),
      prompt: 'Stream please',
      maxRetries: 0,
    });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toContain('Stream please');
    expect(await result.text).toBe(streamed);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(await result.finishReason).toBe('stop');
  });
});

describe('the OpenAI Agents SDK, with its default API', () => {
  it('runs an agent with a function tool to its final answer', async () => {
    const calls: string[] = [];
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(city);
        return `It is 21 degrees in ${city}.`;
      },
    });
    const agent = new Agent({
      name: 'Weather agent',
      instructions: 'Answer questions about the weather.',
      model: 'sim/chat-standard',
      tools: [getWeather],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ apiKey: key, baseURL: `${gateway.url}/v1` }),
    });
    const result = await runner.run(agent, 'What is the weather in Paris?', { maxTurns: 4 });
    expect(calls).toHaveLength(1);
    expect(typeof result.finalOutput).toBe('string');
    expect((result.finalOutput as string).length).toBeGreaterThan(0);
    expect((await recordedForms()).slice(0, 2)).toEqual(['responses', 'responses']);
  });
});
