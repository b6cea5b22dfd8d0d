/**
 * The Messages form's converters against the vendor's documented request, response and stream
 * examples (`vendors/anthropic/__fixtures__/anthropic-*`): what comes in becomes the right canonical request, and
 * what goes out has the vendor's shape, event for event.
 */
import type {
  CanonicalEvent,
  CanonicalResponse,
  FinishReason,
  PipelineEvent,
  PricedFinish,
} from '../../canonical/model';
import { GatewayError } from '../../errors';
import { parseBody } from '../validation';
import { parseServerSentEvents, RecordingResponse } from '../../../testing/recording-response';
import { messagesErrorBody } from './error-shape';
import { messagesForm } from './index';
import { toCanonicalRequest } from './request-to-canonical';
import { messagesRequestSchema } from './request-schema';
import { toMessagesResponse } from './canonical-to-response';
import { toStopReason } from './canonical-to-stop-reason';
import { writeMessagesStream } from './canonical-to-stream';
import { vendorFixtureText } from '../../vendors/fixtures';

const fixture = (name: string) => vendorFixtureText('anthropic', name);
const json = (name: string) => JSON.parse(fixture(name)) as Record<string, unknown>;
const traceId = '0123456789abcdef-LCL';

const priced = (finishReason: FinishReason, completionTokens = 7): PricedFinish => ({
  type: 'finish',
  finishReason,
  stopSequence: null,
  usage: { promptTokens: 11, completionTokens },
  costUsd: 0.000042,
});

async function* replay(events: PipelineEvent[]): AsyncGenerator<PipelineEvent> {
  yield* events;
}

/** The canonical events a recorded vendor stream stands for, to replay through the transform. */
function canonicalEventsOf(events: ReturnType<typeof parseServerSentEvents>): PipelineEvent[] {
  const reasons: Record<string, FinishReason> = {
    end_turn: 'stop',
    tool_use: 'tool_calls',
    max_tokens: 'length',
  };
  const result: PipelineEvent[] = [];
  let tool: { id: string; name: string; arguments: string } | null = null;
  for (const { data } of events) {
    const body = JSON.parse(data);
    if (body.type === 'content_block_start' && body.content_block.type === 'tool_use') {
      tool = { id: body.content_block.id, name: body.content_block.name, arguments: '' };
    } else if (body.type === 'content_block_delta' && body.delta.type === 'text_delta') {
      result.push({ type: 'text-delta', text: body.delta.text });
    } else if (body.type === 'content_block_delta' && body.delta.type === 'input_json_delta') {
      tool!.arguments += body.delta.partial_json;
    } else if (body.type === 'content_block_stop' && tool) {
      result.push({ type: 'tool-call', ...tool });
      tool = null;
    } else if (body.type === 'message_delta') {
      result.push(priced(reasons[body.delta.stop_reason]!, body.usage.output_tokens));
    }
  }
  return result;
}

describe('Messages request → canonical request', () => {
  it('converts the documented multi-turn request with a system block list', () => {
    const canonical = toCanonicalRequest(
      parseBody(messagesRequestSchema, json('anthropic-text-request.json')),
    );
    expect(canonical).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'You are a seasoned data scientist at a Fortune 500 company.',
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Hello there.' }] },
        {
          role: 'assistant',
          parts: [{ type: 'text', text: "Hi, I'm Claude. How can I help you?" }],
        },
        { role: 'user', parts: [{ type: 'text', text: 'Can you explain LLMs in plain English?' }] },
      ],
      maxTokens: 1024,
      temperature: 0.5,
      topP: 0.9,
      stop: ['\n\nHuman:'],
      seed: null,
      tools: [],
      toolChoice: 'auto',
      stream: false,
      // The fixture's `thinking: {type: 'disabled'}`.
      reasoning: { effort: 'none', budgetTokens: null, includeText: false },
    });
  });

  it('turns tool_use into a canonical tool call and tool_result into a tool turn before the text', () => {
    const body = json('anthropic-tool-use-request.json');
    const canonical = toCanonicalRequest(parseBody(messagesRequestSchema, body));
    expect(canonical.toolChoice).toEqual({ name: 'get_weather' });
    expect(canonical.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Get the current weather in a given location',
        parameters: (body.tools as Array<{ input_schema: unknown }>)[0]!.input_schema,
      },
    ]);
    expect(canonical.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: "I'll check the current weather in San Francisco for you." },
          {
            type: 'tool_call',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            arguments: JSON.stringify({ location: 'San Francisco, CA', unit: 'celsius' }),
          },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            content: '15 degrees',
          },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'And should I take an umbrella?' }] },
    ]);
  });

  it('keeps inline images as data and URL images as URLs', () => {
    const canonical = toCanonicalRequest(
      parseBody(messagesRequestSchema, json('anthropic-image-request.json')),
    );
    const [inline, byUrl, text] = canonical.messages[0]!.parts;
    expect(inline).toMatchObject({ type: 'image', mediaType: 'image/jpeg' });
    expect(inline).toHaveProperty('data');
    expect(byUrl).toEqual({
      type: 'image',
      mediaType: 'image/*',
      url: expect.stringMatching(/^https:\/\//),
    });
    expect(text).toEqual({ type: 'text', text: 'Describe these images.' });
  });

  it.each([
    [{ model: 'sim/echo-mini', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    [
      { model: 'sim/echo-mini', max_tokens: 5, messages: [{ role: 'robot', content: 'hi' }] },
      'messages.0.role',
    ],
    [
      {
        model: 'sim/echo-mini',
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'text' }] }],
      },
      'messages.0.content',
    ],
    [
      {
        model: 'sim/echo-mini',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 3,
      },
      'temperature',
    ],
  ])('refuses bad input with a 400 naming the field (%#)', (body, field) => {
    let thrown: unknown;
    try {
      parseBody(messagesRequestSchema, body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).status).toBe(400);
    expect((thrown as GatewayError).message).toContain(`'${field}`);
  });

  it('drops blocks it does not use but keeps unknown fields harmlessly', () => {
    const body = parseBody(messagesRequestSchema, {
      model: 'sim/echo-mini',
      max_tokens: 5,
      container: 'x',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: {} },
            { type: 'text', text: 'hi' },
          ],
        },
      ],
    });
    expect(body).toHaveProperty('container', 'x');
    expect(toCanonicalRequest(body).messages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    ]);
  });
});

describe("Claude Code's billing line", () => {
  const claudeCode = JSON.parse(fixture('claude-code-requests.json')) as {
    requests: Array<{ body: Record<string, unknown> }>;
  };
  const system = claudeCode.requests[0]!.body.system as Array<{ text: string }>;
  const target = { url: new URL('http://gateway/v1/messages') };
  const toCanonical = (body: unknown) => messagesForm.toCanonical(body, target);
  const request = (extra: Record<string, unknown>) => ({
    model: 'sim/echo-mini',
    max_tokens: 5,
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

  it("leaves the canonical system without the recorded request's first block, and reports it", () => {
    const { body } = claudeCode.requests[0]!;
    expect(system[0]!.text).toMatch(/^x-anthropic-billing-header: cc_version=\S+; cc_entrypoint=/);
    const canonical = toCanonical(body);
    expect(canonical.system).toBe(
      system
        .slice(1)
        .map((block) => block.text)
        .join('\n\n'),
    );
    expect(canonical.system).not.toContain('x-anthropic-billing-header');
    expect(canonical.inbound?.unmappedFields).toContain(
      'system.0.text(x-anthropic-billing-header)',
    );
    // The body an Anthropic upstream gets keeps the line as sent.
    expect(canonical.inbound?.body.system).toEqual(system);
  });

  it('takes only the first line, of the first block or of the string', () => {
    const line = 'x-anthropic-billing-header: cc_version=2.1.332.0b8; cc_entrypoint=sdk-cli;';
    const inString = toCanonical(request({ system: `${line}\nBe brief.` }));
    expect(inString.system).toBe('Be brief.');
    expect(inString.inbound?.unmappedFields).toEqual(['system(x-anthropic-billing-header)']);
    const sharedBlock = toCanonical(
      request({ system: [{ type: 'text', text: `${line}\nBe brief.\n${line}` }] }),
    );
    expect(sharedBlock.system).toBe(`Be brief.\n${line}`);
    expect(sharedBlock.inbound?.unmappedFields).toEqual([
      'system.0.text(x-anthropic-billing-header)',
    ]);
  });

  it('leaves a system alone whose first text is something else', () => {
    for (const sent of [
      `Be brief.\nx-anthropic-billing-header: cc_version=1;`,
      [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=1;' },
      ],
      ' x-anthropic-billing-header: cc_version=1;',
    ]) {
      const canonical = toCanonical(request({ system: sent }));
      expect(canonical.system).toContain('x-anthropic-billing-header');
      expect(canonical.inbound?.unmappedFields).toEqual([]);
    }
  });
});

describe('canonical response → Messages response', () => {
  it.each([
    'anthropic-text-response-without-cache.json',
    'anthropic-tool-use-response-without-thinking.json',
  ])('has the shape of %s', (name) => {
    const recorded = json(name) as {
      content: Array<Record<string, unknown>>;
      stop_reason: string;
      usage: object;
    };
    const text = recorded.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    const toolCalls = recorded.content
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({
        id: String(block.id),
        name: String(block.name),
        arguments: JSON.stringify(block.input),
      }));
    const canonical: CanonicalResponse = {
      text,
      toolCalls,
      finish: priced(toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    };

    const converted = toMessagesResponse(canonical, 'sim/chat-standard', traceId);
    expect(Object.keys(converted)).toEqual(expect.arrayContaining(Object.keys(recorded)));
    expect(Object.keys(converted.usage)).toEqual(
      expect.arrayContaining(Object.keys(recorded.usage)),
    );
    expect(converted.content).toEqual(recorded.content);
    expect(converted.stop_reason).toBe(recorded.stop_reason);
    expect(converted).toMatchObject({
      type: 'message',
      role: 'assistant',
      id: 'msg_0123456789abcdef',
      stop_sequence: null,
    });
    expect(converted.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 7,
      cost_usd: 0.000042,
    });
  });

  it('shows a refusal as text, as the stream does: the form has no field of its own for it', () => {
    const converted = toMessagesResponse(
      { text: '', toolCalls: [], finish: priced('stop'), refusal: 'I cannot do that.' },
      'sim/chat-standard',
      traceId,
    );
    expect(converted.content).toEqual([{ type: 'text', text: 'I cannot do that.' }]);
  });

  it('maps every canonical finish reason to a documented stop reason', () => {
    const documented = [
      'end_turn',
      'max_tokens',
      'stop_sequence',
      'tool_use',
      'pause_turn',
      'refusal',
    ];
    const reasons: FinishReason[] = [
      'stop',
      'length',
      'tool_calls',
      'stop_sequence',
      'content_filter',
      'error',
    ];
    for (const reason of reasons) expect(documented).toContain(toStopReason(reason));
    expect(toStopReason('length')).toBe('max_tokens');
    expect(toStopReason('stop_sequence')).toBe('stop_sequence');
  });

  it('writes errors in the documented error shape', () => {
    const recorded = json('anthropic-error-not-found.json');
    const body = messagesErrorBody(
      new GatewayError({
        status: 404,
        type: 'model_not_found',
        stage: 'validation',
        message: 'No such model.',
      }),
      traceId,
    );
    expect(Object.keys(body).sort()).toEqual(Object.keys(recorded).sort());
    // The vendor's fields, and the gateway's stage as every form gives it.
    expect(body.error).toEqual({
      type: 'not_found_error',
      message: 'No such model.',
      stage: 'validation',
    });
  });

  it('says in the error when a retry may succeed, as the chat-completion form does', () => {
    const body = messagesErrorBody(
      new GatewayError({
        status: 503,
        type: 'provider_error',
        stage: 'provider',
        message: 'Overloaded.',
        retryAfterSeconds: 7,
      }),
      traceId,
    );
    expect(body).toEqual({
      type: 'error',
      error: {
        type: 'overloaded_error',
        message: 'Overloaded.',
        stage: 'provider',
        retry_after: 7,
      },
      request_id: traceId,
    });
  });
});

describe('canonical events → Messages stream', () => {
  it.each([
    'anthropic-text-stream.chunks.txt',
    'anthropic-tool-use-stream-whole-phrases.chunks.txt',
  ])('replays %s event for event', async (name) => {
    const recorded = parseServerSentEvents(fixture(name));
    const response = new RecordingResponse();
    await writeMessagesStream(response.asServerResponse(), replay(canonicalEventsOf(recorded)), {
      model: 'sim/chat-standard',
      traceId,
      promptTokens: 11,
    });
    const written = parseServerSentEvents(response.body);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    // Pings may come anywhere; everything else must come in the vendor's order.
    const withoutPings = (events: typeof written) =>
      events.filter((event) => event.event !== 'ping');
    expect(withoutPings(written).map((event) => event.event)).toEqual(
      withoutPings(recorded).map((event) => event.event),
    );
    for (const event of written) expect(JSON.parse(event.data).type).toBe(event.event);

    const pairs = withoutPings(written).map((event, index) => [
      JSON.parse(event.data),
      JSON.parse(withoutPings(recorded)[index]!.data),
    ]);
    for (const [ours, theirs] of pairs) {
      if (ours.type === 'content_block_delta' || ours.type === 'content_block_stop')
        expect(ours).toEqual(theirs);
      if (ours.type === 'content_block_start') expect(ours).toEqual(theirs);
      if (ours.type === 'message_delta') {
        expect(ours.delta).toEqual(theirs.delta);
        expect(ours.usage.output_tokens).toBe(theirs.usage.output_tokens);
      }
      if (ours.type === 'message_start') {
        expect(Object.keys(ours.message)).toEqual(
          expect.arrayContaining(Object.keys(theirs.message)),
        );
        expect(ours.message.usage.input_tokens).toBe(11);
      }
    }
    expect(response.writableEnded).toBe(true);
  });

  it('tells the usage the provider reported at its start in message_start, and every count in message_delta', async () => {
    const cache = { cacheReadTokens: 3000, cacheWriteTokens: 1500, cacheWriteHourTokens: 1000 };
    const response = new RecordingResponse();
    await writeMessagesStream(
      response.asServerResponse(),
      replay([
        { type: 'usage', usage: { promptTokens: 4700, completionTokens: null, ...cache } },
        { type: 'text-delta', text: 'Hi' },
        {
          ...priced('stop', 120),
          usage: { promptTokens: 4700, completionTokens: 120, reasoningTokens: 80, ...cache },
        },
      ]),
      { model: 'sim/chat-standard', traceId, promptTokens: 11 },
    );
    const written = parseServerSentEvents(response.body).map((event) => JSON.parse(event.data));
    const promptUsage = {
      input_tokens: 200,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
    };
    expect(written[0]).toMatchObject({ type: 'message_start', message: { usage: promptUsage } });
    expect(written.find((event) => event.type === 'message_delta').usage).toEqual({
      ...promptUsage,
      output_tokens: 120,
      output_tokens_details: { thinking_tokens: 80 },
      cost_usd: 0.000042,
    });
  });

  it('sends a ping while the provider is silent, then goes on', async () => {
    const response = new RecordingResponse();
    let pingSeen!: () => void;
    const secondPing = new Promise<void>((resolve) => (pingSeen = resolve));
    let pings = 0;
    response.onWrite = (text) => {
      if (text.startsWith('event: ping') && ++pings === 2) pingSeen();
    };
    async function* slow(): AsyncGenerator<PipelineEvent> {
      // The provider waits until the stream has pinged while waiting for it.
      await secondPing;
      yield { type: 'text-delta', text: 'late' };
      yield priced('stop', 1);
    }
    await writeMessagesStream(response.asServerResponse(), slow(), {
      model: 'sim/chat-standard',
      traceId,
      promptTokens: 11,
      pingIntervalMs: 1,
    });
    const names = parseServerSentEvents(response.body).map((event) => event.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'ping']);
    expect(names.at(-1)).toBe('message_stop');
  });

  it('ends with an error event in the vendor shape when the provider fails mid-stream', async () => {
    async function* failing(): AsyncGenerator<CanonicalEvent> {
      yield { type: 'text-delta', text: 'partial' };
      throw new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: 'The provider failed while answering. Retry later.',
      });
    }
    const response = new RecordingResponse();
    await writeMessagesStream(
      response.asServerResponse(),
      failing() as AsyncGenerator<PipelineEvent>,
      { model: 'sim/chat-standard', traceId, promptTokens: 11 },
    );
    const last = parseServerSentEvents(response.body).at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });
});
