/**
 * An openai-compatible upstream that declares `responses_api`: Responses requests reach its
 * `/responses` as sent (model and output bound replaced, a stored conversation resolved into the
 * input), and its answers, plain and streamed, come back through every form. Chat requests to the
 * same provider still use `/chat/completions`.
 */
import OpenAI from 'openai';
import { sealReasoning } from '../../canonical/reasoning-signature';
import { startFakeUpstream, type FakeUpstream } from '../../../testing/upstreams/fake-upstream';
import {
  fixtureEvents,
  fixtureJson,
  providersFileFor,
} from '../../../testing/upstreams/upstream-kit';
import { startTestGateway, type TestGateway } from '../../../testing/gateway-support';

let fake: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;

const MODEL = 'test/oai-responses';
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  strict: false,
  parameters: { type: 'object', properties: { location: { type: 'string' } } },
};

beforeAll(async () => {
  fake = await startFakeUpstream();
  const setup = providersFileFor([
    {
      id: 'oai-r',
      kind: 'openai-compatible',
      url: fake.url,
      retry: { max_attempts: 1 },
      responses_api: true,
      models: [
        { id: MODEL, upstreamModel: 'gpt-upstream-1', prompt: '0.0000001', completion: '0.000002' },
      ],
    },
  ]);
  gateway = await startTestGateway({ providers: setup.providers });
  const key = (await gateway.createKey({ kind: 'account', limitUsd: 20 })).key;
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
});

describe('an upstream that speaks the Responses form', () => {
  it('gets the request as sent, with only the model and bound replaced, and its answer back', async () => {
    fake.reply({ body: fixtureJson('openai-compatible', 'openai-responses-text.json') });
    const answer = await client.responses.create({
      model: MODEL,
      input: 'Hello',
      instructions: 'Be kind.',
      max_output_tokens: 100,
      metadata: { team: 'a' },
      text: { verbosity: 'low' },
      store: false,
    });
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toEqual({
      model: 'gpt-upstream-1',
      input: 'Hello',
      instructions: 'Be kind.',
      max_output_tokens: 100,
      metadata: { team: 'a' },
      text: { verbosity: 'low' },
      store: false,
      stream: false,
    });
    expect(answer.output_text).toBe('Hello! How can I help?');
    expect(answer.usage).toMatchObject({ input_tokens: 31, output_tokens: 9 });
  });

  it('streams reasoning and a function call back, with the reasoning tokens in the usage', async () => {
    fake.reply({ events: fixtureEvents('openai-compatible', 'openai-responses-tool.chunks.txt') });
    const stream = await client.responses.create({
      model: MODEL,
      input: 'Weather in Paris?',
      tools: [weatherTool],
      include: ['reasoning.encrypted_content'],
      stream: true,
      store: false,
    });
    let completed: OpenAI.Responses.Response | undefined;
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(fake.requests.at(-1)!.body.stream).toBe(true);
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(completed!.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const reasoning = completed!.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning).toMatchObject({
      summary: [{ type: 'summary_text', text: 'Need the weather tool.' }],
    });
    // Sealed by the gateway with its maker; the maker gets its own value back on the next turn.
    expect(reasoning.encrypted_content).toMatch(/^gwr1:/);
    expect(reasoning.encrypted_content).not.toContain('gAAAAenc0123');
    expect(completed!.output[1]).toMatchObject({
      call_id: 'call_w1',
      name: 'get_weather',
      arguments: '{"location":"Paris"}',
    });
    expect(completed!.usage).toMatchObject({
      output_tokens: 24,
      output_tokens_details: { reasoning_tokens: 12 },
    });

    fake.reply({ body: fixtureJson('openai-compatible', 'openai-responses-text.json') });
    await client.responses.create({
      model: MODEL,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { ...reasoning, id: undefined } as unknown as OpenAI.Responses.ResponseReasoningItem,
        completed!.output[1] as OpenAI.Responses.ResponseFunctionToolCall,
        { type: 'function_call_output', call_id: 'call_w1', output: 'Sunny' },
        // Made by another provider: it cannot go to this one.
        {
          id: 'rs_other',
          type: 'reasoning',
          summary: [],
          encrypted_content: sealReasoning({ text: 'x', signature: 'gw1:ant:sig' }, undefined),
        },
      ],
      tools: [weatherTool],
      store: false,
    });
    const input = fake.requests.at(-1)!.body.input as Array<Record<string, unknown>>;
    expect(input.filter((item) => item.type === 'reasoning')).toEqual([
      expect.objectContaining({ type: 'reasoning', encrypted_content: 'gAAAAenc0123' }),
    ]);
  });

  it('resolves previous_response_id into the input, since the upstream does not know the id', async () => {
    fake.reply(
      { body: fixtureJson('openai-compatible', 'openai-responses-text.json') },
      { body: fixtureJson('openai-compatible', 'openai-responses-text.json') },
    );
    const first = await client.responses.create({ model: MODEL, input: 'First' });
    await client.responses.create({
      model: MODEL,
      input: 'Second',
      previous_response_id: first.id,
    });
    const sent = fake.requests.at(-1)!.body;
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input).toEqual([
      expect.objectContaining({ role: 'user', content: [{ type: 'input_text', text: 'First' }] }),
      expect.objectContaining({ type: 'message', role: 'assistant' }),
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Second' }] },
    ]);
  });

  it('still gets chat completions on /chat/completions', async () => {
    fake.reply({ body: fixtureJson('openai-compatible', 'openai-text-response.json') });
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(fake.requests.at(-1)!.path).toBe('/v1/chat/completions');
  });
});
