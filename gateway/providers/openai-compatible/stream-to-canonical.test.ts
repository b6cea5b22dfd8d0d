/**
 * The stream transform over recorded chat-completion streams (`vendors/openai/__fixtures__/*.chunks.txt`, the
 * raw server-sent events), split into events the way the engine splits them.
 */
import { createParser } from 'eventsource-parser';
import type { CanonicalEvent } from '../../canonical/model';
import type { UpstreamSseEvent } from '../upstream/adapter';
import { UpstreamError } from '../upstream-error';
import { openAiCompatibleAdapter as adapter } from './index';
import { vendorFixtureText } from '../../vendors/fixtures';

const providerId = 'openai';

function sseEvents(name: string): UpstreamSseEvent[] {
  const events: UpstreamSseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ event: event.event, data: event.data }),
  });
  parser.feed(vendorFixtureText('openai', name));
  return events;
}

/** The JSON chunks of a fixture, to read expectations from. */
const chunksOf = (events: UpstreamSseEvent[]) =>
  events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data));

/** The events each upstream event produced, then those of the end of the stream. */
function run(events: UpstreamSseEvent[]) {
  const state = adapter.createStreamState();
  const perEvent = events.map((event) => adapter.transformStreamEvent(state, event, providerId));
  const atEnd = adapter.finishStream(state, providerId);
  return { perEvent, atEnd, all: [...perEvent.flat(), ...atEnd] };
}

function failureOf(action: () => unknown): UpstreamError {
  try {
    action();
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected an UpstreamError');
}

const finishOf = (events: CanonicalEvent[]) => events.find((event) => event.type === 'finish');

describe('a text stream with include_usage', () => {
  const events = sseEvents('openai-text-stream.chunks.txt');
  const chunks = chunksOf(events);

  it('sends each piece of text on at the chunk that carried it', () => {
    const { perEvent } = run(events);

    events.forEach((event, index) => {
      const content =
        event.data === '[DONE]' ? '' : (chunks[index]?.choices[0]?.delta.content ?? '');
      expect(perEvent[index]).toEqual(content ? [{ type: 'text-delta', text: content }] : []);
    });
    expect(
      perEvent
        .flat()
        .map((event) => (event.type === 'text-delta' ? event.text : ''))
        .join(''),
    ).toBe('Hello! How can I assist you today?');
  });

  it('finishes only at the end of the stream, with the usage that came after the finish chunk', () => {
    const usageChunk = chunks.at(-1);
    const finishIndex = chunks.findIndex((chunk) => chunk.choices[0]?.finish_reason);
    expect(usageChunk.choices).toEqual([]);
    expect(finishIndex).toBeLessThan(chunks.length - 1);

    const { perEvent, atEnd } = run(events);

    expect(perEvent.flat().some((event) => event.type === 'finish')).toBe(false);
    expect(atEnd).toEqual([
      {
        type: 'finish',
        finishReason: 'stop',
        rawFinishReason: 'stop',
        stopSequence: null,
        usage: {
          promptTokens: usageChunk.usage.prompt_tokens,
          completionTokens: usageChunk.usage.completion_tokens,
        },
      },
    ]);
  });

  it('is cut when it ends before a finish_reason or [DONE]', () => {
    const finishIndex = chunks.findIndex((chunk) => chunk.choices[0]?.finish_reason);
    const state = adapter.createStreamState();
    for (const event of events.slice(0, finishIndex))
      adapter.transformStreamEvent(state, event, providerId);

    const error = failureOf(() => adapter.finishStream(state, providerId));

    expect(error.failure).toBe('cut');
    expect(error.providerId).toBe(providerId);
  });
});

describe('a stream without usage', () => {
  it('finishes with usage null', () => {
    const events = sseEvents('openai-stream-without-usage.chunks.txt');
    expect(chunksOf(events).some((chunk) => 'usage' in chunk)).toBe(false);

    const { all } = run(events);

    expect(finishOf(all)).toMatchObject({ finishReason: 'stop', usage: null });
    expect(all.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(0);
  });

  it('takes the usage from the finish chunk on servers that put it there, [DONE] or not', () => {
    const events = sseEvents('openai-stream-without-usage.chunks.txt').filter(
      (event) => event.data !== '[DONE]',
    );
    const last = JSON.parse(events.at(-1)!.data);
    last.usage = { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 };
    events[events.length - 1] = { data: JSON.stringify(last) };

    expect(finishOf(run(events).all)).toMatchObject({
      usage: { promptTokens: 31, completionTokens: 12 },
    });
  });

  it('leaves the completion unreported when text followed the last usage (a placeholder or a running count)', () => {
    const events = sseEvents('openai-stream-without-usage.chunks.txt');
    const first = JSON.parse(events[0]!.data);
    first.usage = { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 };
    events[0] = { data: JSON.stringify(first) };

    expect(finishOf(run(events).all)).toMatchObject({
      usage: { promptTokens: 12, completionTokens: null },
    });
  });

  it('finishes as a stop when [DONE] comes without a finish_reason', () => {
    const events = sseEvents('openai-stream-without-usage.chunks.txt').filter((event) => {
      return event.data === '[DONE]' || !JSON.parse(event.data).choices[0].finish_reason;
    });

    expect(finishOf(run(events).all)).toMatchObject({
      finishReason: 'stop',
      rawFinishReason: null,
    });
  });
});

describe('a stream of two parallel tool calls', () => {
  const events = sseEvents('openai-tool-call-stream.chunks.txt');
  const chunks = chunksOf(events);
  const starts = chunks.flatMap((chunk, index) =>
    (chunk.choices[0]?.delta.tool_calls ?? [])
      .filter((fragment: { id?: string }) => fragment.id)
      .map((fragment: { id: string; function: { name: string } }) => ({
        ...fragment,
        chunk: index,
      })),
  );

  it('sends each call whole once the next starts or the choice finishes', () => {
    const finishIndex = chunks.findIndex((chunk) => chunk.choices[0]?.finish_reason);
    expect(starts).toHaveLength(2);

    const { perEvent, atEnd } = run(events);

    expect(perEvent[starts[1].chunk]).toEqual([
      {
        type: 'tool-call',
        id: starts[0].id,
        name: starts[0].function.name,
        arguments: '{"location":"Paris, France"}',
      },
    ]);
    expect(perEvent[finishIndex]).toEqual([
      {
        type: 'tool-call',
        id: starts[1].id,
        name: starts[1].function.name,
        arguments: '{"location":"Bogotá, Colombia"}',
      },
    ]);
    expect(perEvent.flat().filter((event) => event.type !== 'tool-call')).toEqual([]);
    expect(atEnd).toEqual([
      {
        type: 'finish',
        finishReason: 'tool_calls',
        rawFinishReason: 'tool_calls',
        stopSequence: null,
        usage: {
          promptTokens: chunks.at(-1).usage.prompt_tokens,
          completionTokens: chunks.at(-1).usage.completion_tokens,
        },
      },
    ]);
  });

  it('sends calls that arrive whole and unindexed as separate calls', () => {
    const whole = (id: string, city: string) => ({
      data: JSON.stringify({
        choices: [
          {
            delta: {
              tool_calls: [
                {
                  id,
                  type: 'function',
                  function: { name: 'get_weather', arguments: `{"city":"${city}"}` },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      }),
    });

    const { all } = run([
      whole('a1', 'Oslo'),
      whole('b2', 'Rome'),
      { data: '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}' },
    ]);

    expect(all.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'a1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'tool-call', id: 'b2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });
});

describe('errors inside a stream', () => {
  it('turns OpenRouter’s mid-stream error chunk into an in_band failure, after the text before it', () => {
    const events = sseEvents('openai-in-band-error.chunks.txt');
    const errorChunk = JSON.parse(events.at(-1)!.data);
    const state = adapter.createStreamState();
    const before = events
      .slice(0, -1)
      .flatMap((event) => adapter.transformStreamEvent(state, event, providerId));

    const error = failureOf(() => adapter.transformStreamEvent(state, events.at(-1)!, providerId));

    expect(before).toEqual([
      { type: 'text-delta', text: 'The tallest' },
      { type: 'text-delta', text: ' building' },
    ]);
    expect(error.failure).toBe('in_band');
    expect(error.message).toBe(errorChunk.error.message);
    expect(error.details).toEqual({ upstreamType: errorChunk.error.code });
  });

  it('takes a numeric error code as the status the error stands for', () => {
    const state = adapter.createStreamState();
    const event = {
      data: '{"error":{"code":502,"message":"Upstream model is down"},"choices":[]}',
    };

    const error = failureOf(() => adapter.transformStreamEvent(state, event, providerId));

    expect(error).toMatchObject({
      failure: 'in_band',
      message: 'Upstream model is down',
      details: { status: 502 },
    });
  });

  it.each([
    ['not JSON', '{"choices":[{"delta":{"content":"Hel'],
    ['choices that are not a list', '{"choices":{"delta":{"content":"Hi"}}}'],
    [
      'a tool call without a name',
      '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}',
    ],
  ])('refuses a chunk with %s as malformed', (_case, data) => {
    const state = adapter.createStreamState();

    expect(failureOf(() => adapter.transformStreamEvent(state, { data }, providerId)).failure).toBe(
      'malformed',
    );
  });

  it('ignores empty data, chunks with neither choices nor usage, and anything after [DONE]', () => {
    const state = adapter.createStreamState();
    const ignored = [
      '',
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[]}',
      '[DONE]',
      '{"choices":[{"delta":{"content":"late"}}]}',
    ];

    expect(
      ignored.flatMap((data) => adapter.transformStreamEvent(state, { data }, providerId)),
    ).toEqual([]);
  });
});
