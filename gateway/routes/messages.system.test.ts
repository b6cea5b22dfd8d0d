/**
 * The Messages form end to end: the vendor's own client (`@anthropic-ai/sdk`) and raw HTTP
 * against a real gateway process, with keys minted by the command line.
 */
import Anthropic from '@anthropic-ai/sdk';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';

let gateway: GatewayProcess;
let key: string;

beforeAll(async () => {
  gateway = await startGatewayProcess();
  key = (await gateway.createKey(['--kind', 'account'])).key;
});
afterAll(async () => {
  await gateway?.stop();
});

/** The vendor's client with the gateway root as its base address; no retries, so errors surface. */
const client = (options: { apiKey?: string; authToken?: string } = { apiKey: key }) =>
  new Anthropic({ ...options, baseURL: gateway.baseUrl, maxRetries: 0 });

const question = { role: 'user' as const, content: 'Tell me about gateways.' };

const weatherTool = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  input_schema: {
    type: 'object' as const,
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
}
const smallRequest = { model: 'sim/echo-mini', max_tokens: 8, messages: [question] };

describe('with the vendor client', () => {
  it('messages.create answers in the Messages shape, with the trace id in cf-ray', async () => {
    const { data, response } = await client()
      .messages.create({
        model: 'sim/chat-standard',
        max_tokens: 64,
        system: 'Be brief.',
        messages: [question],
      })
      .withResponse();
    expect(response.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
    expect(data).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'sim/chat-standard',
      stop_sequence: null,
    });
    expect(data.id).toBe(`msg_${response.headers.get('cf-ray')!.slice(0, 16)}`);
    expect(data.content).toHaveLength(1);
    expect(data.content[0]!.type).toBe('text');
    expect(['end_turn', 'max_tokens']).toContain(data.stop_reason);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect((data.usage as unknown as { cost_usd: number }).cost_usd).toBeGreaterThan(0);
  });

  it('messages.create calls a tool, and answers in text once the tool has answered', async () => {
    const first = await client().messages.create({
      model: 'sim/chat-standard',
      max_tokens: 64,
      tools: [weatherTool],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    expect(use).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { location: expect.any(String) },
    });

    const second = await client().messages.create({
      model: 'sim/chat-standard',
      max_tokens: 64,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: use!.type === 'tool_use' ? use!.id : '',
              content: '15 degrees',
            },
          ],
        },
      ],
    });
    expect(second.stop_reason).not.toBe('tool_use');
    const text = second.content[0]!.type === 'text' ? second.content[0]!.text : '';
    expect(text).toContain('15 degrees');
  });

  it('messages.stream delivers the named events in order and the same message as the deltas', async () => {
    const stream = client().messages.stream({
      model: 'sim/chat-standard',
      max_tokens: 64,
      messages: [question],
    });
    const types: string[] = [];
    let deltas = '';
    stream.on('streamEvent', (event) => {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        deltas += event.delta.text;
    });
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types[1]).toBe('content_block_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(new Set(types.slice(2, -3))).toEqual(new Set(['content_block_delta']));
    expect(final.content).toEqual([{ type: 'text', text: deltas }]);
    expect(deltas.length).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
  });

  it('messages.countTokens counts what messages.create then charges as input', async () => {
    const request = {
      model: 'sim/chat-standard',
      system: 'Be brief.',
      messages: [question],
      tools: [weatherTool],
    };
    const counted = await client().messages.countTokens(request);
    const created = await client().messages.create({
      ...request,
      max_tokens: 16,
      tool_choice: { type: 'none' },
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(counted.input_tokens).toBe(created.usage.input_tokens);
  });

  it('raises the vendor error classes: unknown model → NotFoundError, unknown key → AuthenticationError', async () => {
    const unknownModel = client().messages.create({
      model: 'sim/no-such-model',
      max_tokens: 8,
      messages: [question],
    });
    await expect(unknownModel).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(unknownModel).rejects.toMatchObject({
      status: 404,
      error: { type: 'error', error: { type: 'not_found_error' } },
    });

    const unknownKey = client({ apiKey: `sk-${'0'.repeat(40)}` }).messages.create(smallRequest);
    await expect(unknownKey).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('raises PaymentRequiredError (402, billing_error) for a key with nothing left', async () => {
    const empty = await gateway.createKey(['--kind', 'account', '--limit-usd', '0']);
    const refused = client({ apiKey: empty.key }).messages.create(smallRequest);
    await expect(refused).rejects.toBeInstanceOf(Anthropic.PaymentRequiredError);
    await expect(refused).rejects.toMatchObject({
      status: 402,
      error: { error: { type: 'billing_error' } },
    });
    // The stream refuses the same way, before any event.
    const streamed = client({ apiKey: empty.key }).messages.stream(smallRequest).finalMessage();
    await expect(streamed).rejects.toBeInstanceOf(Anthropic.PaymentRequiredError);
  });

  it('accepts the key as an auth token (Authorization: Bearer)', async () => {
    const message = await client({ authToken: key }).messages.create(smallRequest);
    expect(message.type).toBe('message');
  });
});

describe('over raw HTTP', () => {
  it.each([
    ['x-api-key', (value: string) => ({ path: '/v1/messages', headers: { 'x-api-key': value } })],
    [
      'Authorization: Bearer',
      (value: string) => ({ path: '/v1/messages', headers: { authorization: `Bearer ${value}` } }),
    ],
    [
      '?key=',
      (value: string) => ({ path: `/v1/messages?key=${encodeURIComponent(value)}`, headers: {} }),
    ],
  ])('accepts the key as %s', async (_form, send) => {
    const { path, headers } = send(key);
    const response = await post(path, smallRequest, headers);
    expect(response.status).toBe(200);
    expect((await response.json()).type).toBe('message');
  });

  it('lets ?key= win over the headers, both ways', async () => {
    const wrong = `sk-${'1'.repeat(40)}`;
    const queryWins = await post(`/v1/messages?key=${encodeURIComponent(key)}`, smallRequest, {
      'x-api-key': wrong,
    });
    expect(queryWins.status).toBe(200);
    const queryLoses = await post(`/v1/messages?key=${encodeURIComponent(wrong)}`, smallRequest, {
      'x-api-key': key,
      authorization: `Bearer ${key}`,
    });
    expect(queryLoses.status).toBe(401);
    expect(await queryLoses.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });

  it('answers 401 in the vendor shape without a key, with cf-ray', async () => {
    const response = await post('/v1/messages', smallRequest);
    expect(response.status).toBe(401);
    expect(response.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}-/);
    const body = await response.json();
    expect(body).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') },
    });
    expect(body.request_id).toBe(response.headers.get('cf-ray'));
  });

  it('refuses a request without max_tokens with a 400 naming the field', async () => {
    const response = await post(
      '/v1/messages',
      { model: 'sim/echo-mini', messages: [question] },
      { 'x-api-key': key },
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain("'max_tokens'");
  });

  it('accepts and ignores anthropic-beta and unknown fields', async () => {
    const response = await post(
      '/v1/messages',
      { ...smallRequest, metadata: { user_id: 'u-1' }, service_tier: 'auto', top_k: 5 },
      { 'x-api-key': key, 'anthropic-beta': 'prompt-caching-2024-07-31' },
    );
    expect(response.status).toBe(200);
  });

  it('answers other methods and paths under /v1/messages in the vendor shape', async () => {
    const wrongMethod = await fetch(`${gateway.baseUrl}/v1/messages`, {
      headers: { 'x-api-key': key },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(await wrongMethod.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    const unknownPath = await post('/v1/messages/nothing-here', {}, { 'x-api-key': key });
    expect(unknownPath.status).toBe(404);
    expect(await unknownPath.json()).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error' },
    });
  });

  it('streams raw named events, ending with message_delta and message_stop', async () => {
    const response = await post(
      '/v1/messages',
      { ...smallRequest, stream: true },
      { 'x-api-key': key },
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(text).not.toMatch(/^data: \[DONE\]/m);
  });
});
