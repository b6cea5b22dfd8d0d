/**
 * The Responses form with the official `openai` client against the gateway on simulated models:
 * plain and streamed answers, a tool round, stored responses and who may read them.
 */
import OpenAI, { NotFoundError } from 'openai';
import { cfRayPattern } from '../../contract/gateway';
import { openReasoning } from '../canonical/reasoning-signature';
import {
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';
import type { IssuedKey } from '../keys/key-admin';

let gateway: TestGateway;
let client: OpenAI;
let account: IssuedKey;

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  strict: false,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};

beforeAll(async () => {
  gateway = await startTestGateway();
  account = await gateway.createKey({ kind: 'account', limitUsd: 50 });
  client = new OpenAI({ apiKey: account.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.stop();
});

describe('POST /v1/responses with the openai client', () => {
  it('answers a string input with a message item, usage and cost', async () => {
    const { data: answer, response } = await client.responses
      .create({
        model: 'sim/chat-standard',
        input: 'Say hello',
        instructions: 'Be brief.',
        max_output_tokens: 12,
      })
      .withResponse();
    expect(response.headers.get('cf-ray')).toMatch(cfRayPattern);
    expect(answer.object).toBe('response');
    expect(answer.id).toMatch(/^resp_[0-9a-f]{16}$/);
    expect(answer.model).toBe('sim/chat-standard');
    expect(answer.status).toBe('incomplete');
    expect(answer.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(answer.output).toHaveLength(1);
    expect(answer.output[0]!.type).toBe('message');
    expect(answer.output_text.length).toBeGreaterThan(0);
    expect(answer.usage!.output_tokens).toBe(12);
    expect(answer.usage!.total_tokens).toBe(answer.usage!.input_tokens + 12);
    const cost = (answer.usage as unknown as { cost: number }).cost;
    expect(toNanos(cost)).toBe(answer.usage!.input_tokens * 1_000 + 12 * 3_000);

    const record = (await (
      await getWithKey(
        `${gateway.url}/v1/generation?id=${response.headers.get('cf-ray')}`,
        account.key,
      )
    ).json()) as { form: string; completion_tokens: number };
    expect(record.form).toBe('responses');
    expect(record.completion_tokens).toBe(12);
  });

  it('streams events whose text adds up to the plain answer, ending with response.completed', async () => {
    const request = {
      model: 'sim/echo-mini',
      input: [{ role: 'user' as const, content: 'Stream please' }],
      max_output_tokens: 200,
      temperature: 0,
    };
    const plain = await client.responses.create(request);
    const stream = await client.responses.create({ ...request, stream: true });
    const types: string[] = [];
    const sequence: number[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sequence).toEqual(sequence.map((_, index) => index));
    expect(text).toBe(plain.output_text);
    expect(completed!.status).toBe('completed');
    // The client adds output_text to plain answers only; the items carry the same text.
    const message = completed!.output.find((item) => item.type === 'message');
    expect(message?.type === 'message' && message.content).toEqual([
      { type: 'output_text', text: plain.output_text, annotations: [] },
    ]);
    expect(completed!.usage!.output_tokens).toBe(plain.usage!.output_tokens);
  });

  it('runs a tool round: a function_call, then its output, then the answer', async () => {
    const first = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'What is the weather in Paris?',
      tools: [weatherTool],
      store: false,
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('no call');
    expect(JSON.parse(call.arguments)).toHaveProperty('city');

    const second = await client.responses.create({
      model: 'sim/chat-standard',
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: '{"celsius": 21}' },
      ],
      tools: [weatherTool],
      store: false,
    });
    expect(second.output.map((item) => item.type)).toEqual(['message']);
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  it('streams a tool call as added, arguments delta and done', async () => {
    const stream = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'Weather in Oslo?',
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'get_weather' },
      stream: true,
      store: false,
    });
    const types: string[] = [];
    let done: OpenAI.Responses.ResponseOutputItem | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_item.done') done = event.item;
    }
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    expect(done).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(types.at(-1)).toBe('response.completed');
  });

  it('continues a stored conversation with previous_response_id, and lists its input items', async () => {
    const first = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'My name is Ada.',
      max_output_tokens: 20,
    });
    const second = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'What is my name?',
      previous_response_id: first.id,
      max_output_tokens: 20,
    });
    expect(second.previous_response_id).toBe(first.id);
    // The whole conversation reached the model: the prompt counts the earlier turn too.
    const alone = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'What is my name?',
      max_output_tokens: 20,
      store: false,
    });
    expect(second.usage!.input_tokens).toBeGreaterThan(alone.usage!.input_tokens);

    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    const listed = items.data.map((item) =>
      item.type === 'message' ? `${item.role}:${item.type}` : item.type,
    );
    expect(listed).toEqual(['user:message', 'assistant:message', 'user:message']);
    expect(items.data.every((item) => typeof item.id === 'string')).toBe(true);

    const fetched = await client.responses.retrieve(second.id);
    expect(fetched.output_text).toBe(second.output_text);
  });

  it('refuses previous_response_id of a response made with store false', async () => {
    const unstored = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'Forget this.',
      store: false,
    });
    await expect(
      client.responses.create({
        model: 'sim/chat-standard',
        input: 'And now?',
        previous_response_id: unstored.id,
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes a stored response', async () => {
    const answer = await client.responses.create({ model: 'sim/chat-standard', input: 'Hi' });
    await client.responses.delete(answer.id);
    await expect(client.responses.retrieve(answer.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers text.format json_schema with JSON that fits the schema', async () => {
    const answer = await client.responses.create({
      model: 'sim/chat-standard',
      input: 'The weather in Paris, as data.',
      text: {
        format: {
          type: 'json_schema',
          name: 'weather',
          strict: true,
          schema: {
            type: 'object',
            properties: { city: { type: 'string' }, celsius: { type: 'number' } },
            required: ['city', 'celsius'],
            additionalProperties: false,
          },
        },
      },
      store: false,
    });
    const parsed = JSON.parse(answer.output_text) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(['celsius', 'city']);
    expect(typeof parsed.city).toBe('string');
    expect(typeof parsed.celsius).toBe('number');
    expect(answer.text?.format).toMatchObject({ type: 'json_schema', name: 'weather' });
  });

  it('refuses a field it cannot read, naming it', async () => {
    const error = await client.responses
      .create({ model: 'sim/chat-standard', input: 'Hi', max_output_tokens: -1 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((error as Error).message)).toContain('max_output_tokens');
  });
});

describe('POST /v1/responses/input_tokens with the openai client', () => {
  it('counts what the model would be charged as input, runs no model and records nothing', async () => {
    const request = {
      model: 'sim/chat-standard',
      instructions: 'Be brief.',
      input: [
        { role: 'user' as const, content: 'What is the weather in Paris and in Rome today?' },
      ],
      tools: [weatherTool],
    };
    const before = await getWithKey(`${gateway.url}/v1/generations?limit=100`, account.key);
    const recorded = ((await before.json()) as { data: unknown[] }).data.length;

    const counted = await client.responses.inputTokens.count(request);
    expect(counted.object).toBe('response.input_tokens');
    expect(counted.input_tokens).toBeGreaterThan(10);
    const after = await getWithKey(`${gateway.url}/v1/generations?limit=100`, account.key);
    expect(((await after.json()) as { data: unknown[] }).data).toHaveLength(recorded);

    const answer = await client.responses.create({ ...request, max_output_tokens: 16 });
    expect(answer.usage!.input_tokens).toBe(counted.input_tokens);
  });

  it('refuses previous_response_id and an unknown model, naming each', async () => {
    await expect(
      client.responses.inputTokens.count({
        model: 'sim/chat-standard',
        input: 'Hello',
        previous_response_id: 'resp_0123456789abcdef',
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('previous_response_id'),
    });
    await expect(
      client.responses.inputTokens.count({ model: 'sim/no-such-model', input: 'Hello' }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining('sim/no-such-model') });
  });
});

describe('stored responses belong to their key', () => {
  it('lets no other key read, continue or delete a response; its account may read it', async () => {
    const child = await gateway.createKey({
      kind: 'shared_child',
      parentId: account.id,
    });
    const otherAccount = await gateway.createKey({ kind: 'account', limitUsd: 5 });
    const childClient = new OpenAI({
      apiKey: child.key,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const stranger = new OpenAI({
      apiKey: otherAccount.key,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const answer = await childClient.responses.create({
      model: 'sim/chat-standard',
      input: 'Mine',
    });

    await expect(stranger.responses.retrieve(answer.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(stranger.responses.inputItems.list(answer.id)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      stranger.responses.create({
        model: 'sim/chat-standard',
        input: 'Go on',
        previous_response_id: answer.id,
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(stranger.responses.delete(answer.id)).rejects.toBeInstanceOf(NotFoundError);

    // The account over the child may read it; the child still has it afterwards.
    expect((await client.responses.retrieve(answer.id)).id).toBe(answer.id);
    expect((await childClient.responses.retrieve(answer.id)).id).toBe(answer.id);
  });
});

describe('reasoning on the Responses form', () => {
  it('answers the simulated reasoner with a reasoning item, its tokens in the usage', async () => {
    const answer = await client.responses.create({
      model: 'sim/reasoner-large',
      input: 'Why is the sky blue?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 400,
      store: false,
    });
    const reasoning = answer.output.find((item) => item.type === 'reasoning');
    expect(reasoning?.type === 'reasoning' && reasoning.summary[0]?.text.length).toBeGreaterThan(0);
    // The whole block sealed, with its maker's signature inside (`sealReasoning`).
    const sealed = reasoning?.type === 'reasoning' ? reasoning.encrypted_content : null;
    expect(openReasoning(sealed ?? '')).toEqual({
      text: reasoning?.type === 'reasoning' ? reasoning.summary[0]?.text : null,
      signature: expect.stringMatching(/^gw1:simulated:/),
      keyId: expect.any(String),
    });
    expect(answer.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(answer.usage!.output_tokens_details.reasoning_tokens).toBeLessThan(
      answer.usage!.output_tokens,
    );

    const stream = await client.responses.create({
      model: 'sim/reasoner-large',
      input: 'Why is the sky blue?',
      reasoning: { effort: 'low', summary: 'auto' },
      max_output_tokens: 400,
      stream: true,
      store: false,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    // The summary streams before the answer's text.
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeGreaterThan(-1);
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
  });
});
