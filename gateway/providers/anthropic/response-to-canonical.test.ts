/** A whole Messages answer → canonical events, from the vendor's documented examples. */
import { UpstreamError } from '../upstream-error';
import { anthropicAdapter } from './index';
import { mapStopReason } from './stop-reason-to-canonical';
import { readJsonFixture, thrownBy } from '../../../testing/providers/anthropic-kit';

const convert = (body: unknown) => anthropicAdapter.fromResponse(body, 'claude-direct');

describe('a whole Messages answer', () => {
  it('gives its text, then finish with the prompt counted with both cache fields', () => {
    const fixture = readJsonFixture('anthropic-text-response.json');
    expect(convert(fixture)).toEqual([
      { type: 'text-delta', text: 'Hi! My name is Claude.' },
      {
        type: 'finish',
        finishReason: 'stop',
        rawFinishReason: 'end_turn',
        stopSequence: null,
        // input 2095 + cache creation 2051 + cache read 2051, the cached parts priced apart
        usage: {
          promptTokens: 6197,
          completionTokens: 503,
          cacheReadTokens: 2051,
          cacheWriteTokens: 2051,
        },
      },
    ]);
  });

  it('gives the thinking block sealed for its provider, then a tool call with its input as JSON text', () => {
    const events = convert(readJsonFixture('anthropic-tool-use-response.json'));
    expect(events.map((event) => event.type)).toEqual([
      'reasoning-delta',
      'text-delta',
      'tool-call',
      'finish',
    ]);
    expect(events[0]).toEqual({
      type: 'reasoning-delta',
      text: 'The user wants the weather in San Francisco; get_weather takes a location.',
      signature: 'gw1:claude-direct:EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
    });
    expect(events[1]).toEqual({
      type: 'text-delta',
      text: "I'll check the current weather in San Francisco for you.",
    });
    const call = events[2]!;
    if (call.type !== 'tool-call') throw new Error('expected a tool call');
    expect(call.id).toBe('toolu_01A09q90qw90lq917835lq9');
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual({ location: 'San Francisco, CA', unit: 'celsius' });
    expect(events[3]).toMatchObject({
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_use',
      usage: { promptTokens: 472, completionTokens: 89 },
    });
  });

  it('gives a redacted thinking block as its encrypted form, sealed for its provider', () => {
    const events = convert({
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
        { type: 'text', text: 'Done.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 9 },
    });
    expect(events.slice(0, 2)).toEqual([
      { type: 'reasoning-delta', text: '', encrypted: 'gw1:claude-direct:EmwKAhgBEgy3va3pzix' },
      { type: 'text-delta', text: 'Done.' },
    ]);
  });

  it('carries the stop sequence that ended the answer, and null usage when none was reported', () => {
    const fixture = readJsonFixture('anthropic-text-response.json');
    const events = convert({
      ...fixture,
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      usage: undefined,
    });
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop_sequence',
      rawFinishReason: 'stop_sequence',
      stopSequence: 'END',
      usage: null,
    });
  });

  it('sends no event for an empty text block', () => {
    const events = convert({
      content: [{ type: 'text', text: '' }],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 3, output_tokens: 0 },
    });
    expect(events.map((event) => event.type)).toEqual(['finish']);
    expect(events[0]).toMatchObject({ finishReason: 'length' });
  });

  it.each([
    ['no content', { stop_reason: 'end_turn' }],
    ['a text block without text', { content: [{ type: 'text' }], stop_reason: 'end_turn' }],
    [
      'a tool_use block without an id',
      { content: [{ type: 'tool_use', name: 'f', input: {} }], stop_reason: 'tool_use' },
    ],
    ['not an object', 'Hello'],
  ])('is malformed with %s', (_case, body) => {
    const error = thrownBy(() => convert(body));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure).toBe('malformed');
    expect((error as UpstreamError).providerId).toBe('claude-direct');
  });
});

describe('stop reasons', () => {
  it.each([
    ['end_turn', 'stop'],
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop_sequence'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
    ['model_context_window_exceeded', 'stop'],
  ])('%s → %s, keeping the raw reason', (raw, unified) => {
    expect(mapStopReason(raw)).toEqual({ unified, raw });
  });

  it('a missing reason is a stop with no raw reason', () => {
    expect(mapStopReason(null)).toEqual({ unified: 'stop', raw: null });
  });
});
