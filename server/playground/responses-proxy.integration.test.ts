/**
 * `POST /api/chat` with `api: "responses"`: the conversation goes to the gateway's
 * `POST /v1/responses` and its answer comes back in the chat-completion shape the playground
 * reads, plain and streamed; Stop reaches the gateway; errors pass as the gateway wrote them.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chatResultSchema, apiErrorSchema } from '../../contract/workbench-api';
import { cfRayOf, inferenceHeaders, sendJson } from '../test-support/fake-gateway';
import { useGatewayAndBff } from '../test-support/gateway-and-bff';
import { openStream, postJson } from '../test-support/harness';

const proxy = useGatewayAndBff();

const chatBody = (stream: boolean) => ({
  profile: 'main',
  api: 'responses',
  request: {
    model: 'sim/echo',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Again' },
    ],
    max_tokens: 5,
    temperature: 0.5,
    top_p: 0.9,
    stream,
  },
});

function responseObject(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1_700_000_000,
    model: 'sim/echo',
    status: 'completed',
    output: [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'OK', annotations: [] }],
      },
    ],
    usage: { input_tokens: 10, output_tokens: 1, total_tokens: 11, cost: 0.000012 },
    ...overrides,
  };
}

/** One event of the Responses stream, as the gateway writes it (docs/responses.md). */
const eventLine = (event: Record<string, unknown>) =>
  `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;

function writeStreamStart(response: ServerResponse, cfRay = cfRayOf(7)): void {
  response.writeHead(200, inferenceHeaders('text/event-stream', cfRay));
  response.write(
    eventLine({
      type: 'response.created',
      sequence_number: 0,
      response: responseObject({ status: 'in_progress', output: [], usage: null }),
    }),
  );
}

/** The `data:` payloads of the BFF's stream, parsed (`[DONE]` kept as text). */
function dataPayloads(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

describe('POST /api/chat with api "responses"', () => {
  it('sends the conversation as Responses input and answers a chat completion with cost', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, inferenceHeaders('application/json', cfRayOf(200)));
      response.end(JSON.stringify(responseObject()));
    });
    const response = await postJson(proxy.bff, '/api/chat', chatBody(false));
    expect(response.status).toBe(200);
    const sent = proxy.gateway.requests.at(-1);
    expect(sent?.url).toBe('/v1/responses');
    expect(sent?.headers.authorization).toBe(`Bearer ${proxy.key}`);
    expect(JSON.parse(sent?.body ?? '{}')).toEqual({
      model: 'sim/echo',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello.' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Again' }] },
      ],
      max_output_tokens: 5,
      temperature: 0.5,
      top_p: 0.9,
      stream: false,
      store: false,
    });
    const result = chatResultSchema.parse(response.json());
    expect(result.meta).toMatchObject({ upstream_status: 200, cf_ray: cfRayOf(200) });
    expect(result.body).toMatchObject({
      object: 'chat.completion',
      model: 'sim/echo',
      choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, cost: 0.000012 },
    });
  });

  it('names an answer cut short by max_output_tokens "length"', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, inferenceHeaders('application/json', cfRayOf(200)));
      response.end(
        JSON.stringify(
          responseObject({
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
          }),
        ),
      );
    });
    const result = chatResultSchema.parse(
      (await postJson(proxy.bff, '/api/chat', chatBody(false))).json(),
    );
    expect(result.body).toMatchObject({ choices: [{ finish_reason: 'length' }] });
  });

  it('streams text deltas as chat chunks, usage and cost last, then [DONE] and done', async () => {
    proxy.gateway.setHandler((_request, response) => {
      writeStreamStart(response);
      response.write(eventLine({ type: 'response.in_progress', sequence_number: 1 }));
      response.write(
        eventLine({ type: 'response.output_text.delta', sequence_number: 2, delta: 'O' }),
      );
      response.write(
        eventLine({ type: 'response.output_text.delta', sequence_number: 3, delta: 'K' }),
      );
      response.end(
        eventLine({ type: 'response.completed', sequence_number: 4, response: responseObject() }),
      );
    });
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(JSON.parse(proxy.gateway.requests.at(-1)?.body ?? '{}')).toMatchObject({
      stream: true,
      store: false,
    });
    expect(response.text).toMatch(/^event: meta\ndata: [^\n]*"cf_ray":"0000000000000007-TST"/);
    const payloads = dataPayloads(response.text);
    const chunks = payloads.filter(
      (payload): payload is { choices: Array<{ delta: { content?: string } }> } =>
        typeof payload === 'object' &&
        payload !== null &&
        (payload as { object?: unknown }).object === 'chat.completion.chunk',
    );
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('OK');
    expect(chunks.at(-1)).toMatchObject({
      id: 'resp_1',
      choices: [{ finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 1, cost: 0.000012 },
    });
    // The meta event and the final done event frame the data lines; the last data is [DONE].
    expect(payloads.at(-2)).toBe('[DONE]');
    expect(response.text).toMatch(/event: done\ndata: [^\n]*"total_ms":\d/);
  });

  it('streams a function call as chat tool-call fragments', async () => {
    proxy.gateway.setHandler((_request, response) => {
      writeStreamStart(response);
      response.write(
        eventLine({
          type: 'response.output_item.added',
          output_index: 0,
          item: { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '' },
        }),
      );
      response.write(
        eventLine({
          type: 'response.function_call_arguments.delta',
          output_index: 0,
          delta: '{"city":',
        }),
      );
      response.write(
        eventLine({
          type: 'response.function_call_arguments.delta',
          output_index: 0,
          delta: '"Oslo"}',
        }),
      );
      const item = {
        type: 'function_call',
        call_id: 'call_9',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
      };
      response.end(
        eventLine({ type: 'response.completed', response: responseObject({ output: [item] }) }),
      );
    });
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    const fragments = dataPayloads(response.text).flatMap((payload) =>
      typeof payload === 'object' && payload !== null && 'choices' in payload
        ? ((payload as { choices: Array<{ delta: { tool_calls?: unknown[] } }> }).choices[0]?.delta
            .tool_calls ?? [])
        : [],
    );
    expect(fragments).toEqual([
      {
        index: 0,
        id: 'call_9',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 0, function: { arguments: '"Oslo"}' } },
    ]);
    expect(response.text).toContain('"finish_reason":"tool_calls"');
  });

  it('turns response.failed into the gateway error body, with no [DONE]', async () => {
    proxy.gateway.setHandler((_request, response) => {
      writeStreamStart(response);
      response.write(
        eventLine({ type: 'response.output_text.delta', sequence_number: 2, delta: 'pa' }),
      );
      response.end(
        eventLine({
          type: 'response.failed',
          sequence_number: 3,
          response: responseObject({
            status: 'failed',
            error: { code: 'server_error', message: 'The provider failed mid-answer.' },
          }),
        }),
      );
    });
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    const payloads = dataPayloads(response.text);
    expect(payloads).not.toContain('[DONE]');
    // The last data line is the BFF's own done event; the one before it, the failure.
    expect(payloads.at(-2)).toEqual({
      error: 'The provider failed mid-answer.',
      type: 'server_error',
      stage: 'provider',
      request_id: 'resp_1',
    });
    expect(response.text).toMatch(/event: done\ndata: /);
  });

  it('passes a gateway error before the stream as a JSON API error, keys masked', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 402, {
        error: `Key ${proxy.key} is depleted`,
        type: 'insufficient_balance',
        stage: 'admission',
        request_id: cfRayOf(402),
      }),
    );
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    expect(response.status).toBe(402);
    expect(response.text).not.toContain(proxy.key);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      message: expect.stringMatching(/^Key sk-.{4}….{4} is depleted$/) as unknown,
      stage: 'admission',
      upstream_status: 402,
      type: 'insufficient_balance',
      cf_ray: cfRayOf(402),
    });
  });

  it('passes a plain gateway error body on unchanged but for keys, with its status', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 400, {
        error: 'background: true is not supported',
        type: 'invalid_request',
        stage: 'validation',
        request_id: cfRayOf(400),
      }),
    );
    const result = chatResultSchema.parse(
      (await postJson(proxy.bff, '/api/chat', chatBody(false))).json(),
    );
    expect(result.meta.upstream_status).toBe(400);
    expect(result.body).toEqual({
      error: 'background: true is not supported',
      type: 'invalid_request',
      stage: 'validation',
      request_id: cfRayOf(400),
    });
  });

  it('aborts the gateway request when the browser goes away mid-stream (Stop)', async () => {
    proxy.gateway.setHandler((_request, response) => {
      writeStreamStart(response);
      response.write(eventLine({ type: 'response.output_text.delta', delta: 'first' }));
      // Never ends on its own: only an abort from the BFF closes it.
    });
    const stream = openStream(proxy.bff, chatBody(true));
    await stream.waitFor((text) => text.includes('"first"'));
    stream.request.destroy();
    await proxy.gateway.requests.at(-1)!.clientGone;
    expect(proxy.gateway.requests.at(-1)!.url).toBe('/v1/responses');
  });

  it('refuses an unknown api with a 400 naming the field', async () => {
    const response = await postJson(proxy.bff, '/api/chat', {
      ...chatBody(false),
      api: 'assistants',
    });
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ field: 'api' });
    expect(proxy.gateway.requests).toHaveLength(0);
  });
});
