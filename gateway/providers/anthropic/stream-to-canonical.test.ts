/**
 * The stream transform over the vendor's recorded streams, one server-sent event at a time: text
 * goes out as it arrives, tool calls whole, usage counted once, and every failure typed.
 */
import type { UpstreamSseEvent } from '../upstream/adapter';
import { UpstreamError } from '../upstream-error';
import { anthropicAdapter } from './index';
import { readSseFixture, replay, thrownBy } from '../../../testing/providers/anthropic-kit';

const sse = (data: object, event = (data as { type: string }).type): UpstreamSseEvent => ({
  event,
  data: JSON.stringify(data),
});

const failureOf = (action: () => unknown) => {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
};

const messageStart = (usage: object) =>
  sse({
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage },
  });
const stopped = (usage: object, stop_reason = 'end_turn') => [
  sse({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage }),
  sse({ type: 'message_stop' }),
];

describe('the Messages stream', () => {
  it('passes each text delta on as it arrives and counts output tokens once (cumulative, not added)', () => {
    const events = readSseFixture('anthropic-text-stream.chunks.txt');
    // The recording has the vendor's pings; they must be read and ignored.
    expect(events.some((event) => event.event === 'ping')).toBe(true);
    const result = replay(events);
    const deltaIndexes = events.flatMap((event, index) =>
      event.data.includes('"text_delta"') ? [index] : [],
    );
    expect(deltaIndexes.map((index) => result.perEvent[index])).toEqual([
      // The prompt's usage, as message_start told it, goes just ahead of the first of the answer.
      [
        { type: 'usage', usage: { promptTokens: 25, completionTokens: null } },
        { type: 'text-delta', text: 'Hello' },
      ],
      [{ type: 'text-delta', text: '!' }],
    ]);
    expect(result.all.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(result.atEnd).toEqual([
      {
        type: 'finish',
        finishReason: 'stop',
        rawFinishReason: 'end_turn',
        stopSequence: null,
        // message_start said output 1, message_delta said 15 in all: 15, not 16.
        usage: { promptTokens: 25, completionTokens: 15 },
      },
    ]);
  });

  it('gathers a tool call’s fragmented input and sends the call whole when its block stops', () => {
    const events = readSseFixture('anthropic-tool-use-stream.chunks.txt');
    const result = replay(events);
    expect(result.text).toBe("Okay, let's check the weather for San Francisco, CA:");
    const callAt = result.perEvent.findIndex((produced) =>
      produced.some((event) => event.type === 'tool-call'),
    );
    expect(JSON.parse(events[callAt]!.data)).toEqual({ type: 'content_block_stop', index: 1 });
    const calls = result.all.filter((event) => event.type === 'tool-call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' });
    expect(JSON.parse(calls[0]!.arguments)).toEqual({
      location: 'San Francisco, CA',
      unit: 'fahrenheit',
    });
    expect(result.finish).toMatchObject({
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_use',
      usage: { promptTokens: 472, completionTokens: 89 },
    });
  });

  it('streams a thinking block closed by its sealed signature, and reports no usage when the vendor gave none', () => {
    const result = replay(readSseFixture('anthropic-thinking-stream.chunks.txt'));
    expect(result.all.filter((event) => event.type !== 'finish')).toEqual([
      {
        type: 'reasoning-delta',
        text: 'Let me solve this step by step:\n\n1. First break down 27 * 453',
      },
      { type: 'reasoning-delta', text: '\n2. 453 = 400 + 50 + 3' },
      {
        type: 'reasoning-delta',
        text: '',
        signature: 'gw1:claude-direct:EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
      { type: 'text-delta', text: '27 * 453 = 12,231' },
    ]);
    expect(result.finish).toMatchObject({ finishReason: 'stop', usage: null });
  });

  it('turns an in-band overloaded_error into a 529, after the text that came before it', () => {
    const events = readSseFixture('anthropic-overloaded-stream.chunks.txt');
    const state = anthropicAdapter.createStreamState();
    const emitted: unknown[] = [];
    const error = failureOf(() => {
      for (const event of events)
        emitted.push(...anthropicAdapter.transformStreamEvent(state, event, 'claude-direct'));
    });
    expect(emitted).toEqual([
      { type: 'usage', usage: { promptTokens: 25, completionTokens: null } },
      { type: 'text-delta', text: 'Hello' },
    ]);
    expect(error.failure).toBe('in_band');
    expect(error.providerId).toBe('claude-direct');
    expect(error.message).toBe('Overloaded');
    expect(error.details).toEqual({ status: 529, upstreamType: 'overloaded_error' });
  });

  it.each([
    ['rate_limit_error', 429],
    ['api_error', 500],
    ['some_future_error', 500],
  ])('gives an in-band %s the status %i', (type, status) => {
    const error = failureOf(() =>
      replay([
        messageStart({ input_tokens: 5, output_tokens: 1 }),
        sse({ type: 'error', error: { type, message: 'no' } }),
      ]),
    );
    expect(error.failure).toBe('in_band');
    expect(error.details).toEqual({ status, upstreamType: type });
  });

  it('is an in-band error even when an error event’s body is unreadable', () => {
    const error = failureOf(() => replay([{ event: 'error', data: 'Internal Server Error' }]));
    expect(error.failure).toBe('in_band');
    expect(error.details.status).toBe(500);
  });

  it('is cut when the stream ends before the stop reason', () => {
    const events = readSseFixture('anthropic-text-stream.chunks.txt');
    const beforeStop = events.findIndex((event) => event.event === 'message_delta');
    const error = failureOf(() => replay(events.slice(0, beforeStop)));
    expect(error.failure).toBe('cut');
  });

  it('finishes when the stop reason arrived even if message_stop did not', () => {
    const events = readSseFixture('anthropic-text-stream.chunks.txt');
    const result = replay(events.filter((event) => event.event !== 'message_stop'));
    expect(result.finish).toMatchObject({
      finishReason: 'stop',
      usage: { promptTokens: 25, completionTokens: 15 },
    });
  });

  it.each([
    [
      'data that is not JSON',
      {
        event: 'content_block_delta',
        data: '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_de',
      },
    ],
    ['a delta without its delta', sse({ type: 'content_block_delta', index: 0 })],
    [
      'a text delta without text',
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } }),
    ],
    [
      'a tool_use block without a name',
      sse({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't1', input: {} },
      }),
    ],
    ['an event without a type', { event: 'message_delta', data: '{"delta":{}}' }],
  ])('is malformed on %s', (_case, event) => {
    const error = failureOf(() =>
      replay([
        messageStart({ input_tokens: 5, output_tokens: 1 }),
        event,
        ...stopped({ output_tokens: 2 }),
      ]),
    );
    expect(error.failure).toBe('malformed');
  });

  it('takes the newer message_delta’s input and cache counts in place of message_start’s', () => {
    const result = replay([
      messageStart({
        input_tokens: 849,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 10,
      }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      ...stopped({
        input_tokens: 849,
        cache_creation_input_tokens: 12,
        cache_read_input_tokens: 100,
        output_tokens: 47,
      }),
    ]);
    expect(result.finish).toMatchObject({
      usage: { promptTokens: 849 + 12 + 100, completionTokens: 47 },
    });
  });

  it('tells message_start’s cache counts with the first of the answer, once, and the thinking tokens at the end', () => {
    const events = [
      // An error here, before any of the answer, leaves the request free to fall back.
      messageStart({
        input_tokens: 20,
        cache_creation_input_tokens: 1500,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
        output_tokens: 1,
      }),
      sse({ type: 'ping' }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '!' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      ...stopped({ output_tokens: 40, output_tokens_details: { thinking_tokens: 30 } }),
    ];
    const result = replay(events);
    expect(result.perEvent.slice(0, 3).flat()).toEqual([]);
    expect(result.perEvent[3]).toEqual([
      {
        type: 'usage',
        usage: {
          promptTokens: 1520,
          completionTokens: null,
          cacheWriteTokens: 1500,
          cacheWriteHourTokens: 1000,
        },
      },
      { type: 'text-delta', text: 'Hi' },
    ]);
    expect(result.all.filter((event) => event.type === 'usage')).toHaveLength(1);
    expect(result.finish).toMatchObject({
      usage: {
        promptTokens: 1520,
        completionTokens: 40,
        cacheWriteTokens: 1500,
        cacheWriteHourTokens: 1000,
        reasoningTokens: 30,
      },
    });
  });

  it('keeps message_start’s cache counts when message_delta reports only output tokens', () => {
    const result = replay([
      messageStart({
        input_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 3000,
        output_tokens: 1,
      }),
      ...stopped({ output_tokens: 9 }),
    ]);
    expect(result.finish).toMatchObject({ usage: { promptTokens: 3020, completionTokens: 9 } });
  });

  it.each([
    ['no usage at all', undefined],
    ['usage without output_tokens', { input_tokens: 12 }],
    ['a negative count', { output_tokens: -5000 }],
    ['a fractional count', { output_tokens: 0.5 }],
    ['an absurd count', { output_tokens: 1e15 }],
    ['a count sent as text', { output_tokens: '300' }],
  ])(
    'never takes message_start’s placeholder output_tokens as the count: message_delta with %s leaves it unreported',
    (_case, usage) => {
      const result = replay([
        messageStart({ input_tokens: 12, output_tokens: 1 }),
        sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
        sse({ type: 'content_block_stop', index: 0 }),
        sse({
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          ...(usage && { usage }),
        }),
        sse({ type: 'message_stop' }),
      ]);
      // The prompt stays the upstream's; the pipeline counts the completion from the text.
      expect(result.finish).toMatchObject({ usage: { promptTokens: 12, completionTokens: null } });
    },
  );

  it('sends a text block’s opening text, and a tool call whose input came whole in its start', () => {
    const result = replay([
      messageStart({ input_tokens: 5, output_tokens: 1 }),
      sse({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: 'Sure: ' },
      }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 'x' } },
      }),
      sse({ type: 'content_block_stop', index: 1 }),
      sse({
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 't2', name: 'now', input: {} },
      }),
      sse({ type: 'content_block_stop', index: 2 }),
      ...stopped({ output_tokens: 30 }, 'tool_use'),
    ]);
    expect(result.all.filter((event) => event.type !== 'finish')).toEqual([
      { type: 'usage', usage: { promptTokens: 5, completionTokens: null } },
      { type: 'text-delta', text: 'Sure: ' },
      { type: 'tool-call', id: 't1', name: 'lookup', arguments: '{"q":"x"}' },
      { type: 'tool-call', id: 't2', name: 'now', arguments: '{}' },
    ]);
  });

  it('carries the stop sequence, and ignores event types it does not know', () => {
    const result = replay([
      messageStart({ input_tokens: 5, output_tokens: 1 }),
      sse({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} },
      }),
      sse({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' },
      }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'some_future_event', detail: 1 }),
      sse({
        type: 'message_delta',
        delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
        usage: { output_tokens: 4 },
      }),
      sse({ type: 'message_stop' }),
    ]);
    expect(result.all).toEqual([
      {
        type: 'finish',
        finishReason: 'stop_sequence',
        rawFinishReason: 'stop_sequence',
        stopSequence: '###',
        usage: { promptTokens: 5, completionTokens: 4 },
      },
    ]);
  });
});
