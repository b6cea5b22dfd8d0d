/** Whole Gemini answers (the vendor's documented examples) → canonical events. */
import type { CanonicalEvent } from '../../canonical/model';
import { UpstreamError } from '../upstream-error';
import { geminiAdapter } from './index';
import { fixtureJson, type RecordedBody } from '../../../testing/providers/gemini-kit';

const providerId = 'google-main';
const convert = (body: unknown) => geminiAdapter.fromResponse(body, providerId);

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

const finishOf = (events: CanonicalEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error('the answer does not end with finish');
  return last;
};

/** The usage the vendor reports, read from the recording: thinking counts as output. */
const reportedUsage = (body: RecordedBody) => ({
  promptTokens: body.usageMetadata!.promptTokenCount!,
  completionTokens:
    body.usageMetadata!.candidatesTokenCount! + (body.usageMetadata!.thoughtsTokenCount ?? 0),
  ...(body.usageMetadata!.thoughtsTokenCount && {
    reasoningTokens: body.usageMetadata!.thoughtsTokenCount,
  }),
});

describe('Gemini whole answer', () => {
  it('reads the documented text answer: its text, STOP and the usage with thinking tokens', () => {
    const recorded = fixtureJson('gemini-text-response.json');
    const events = convert(recorded);
    const text = recorded.candidates![0]!.content!.parts!.map((part) => part.text).join('');
    expect(events.filter((event) => event.type === 'text-delta')).toEqual([
      { type: 'text-delta', text },
    ]);
    expect(finishOf(events)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      rawFinishReason: 'STOP',
      stopSequence: null,
      usage: reportedUsage(recorded),
    });
    // The recording has thinking tokens, so leaving them out would show here.
    expect(recorded.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it('reads two function calls, each with its own id, and finishes with tool_calls', () => {
    const recorded = fixtureJson('gemini-function-call-response.json');
    const calls = recorded.candidates![0]!.content!.parts!.map((part) => part.functionCall!);
    const events = convert(recorded);
    const toolCalls = events.filter((event) => event.type === 'tool-call');
    expect(
      toolCalls.map(({ name, arguments: text }) => ({ name, args: JSON.parse(text) })),
    ).toEqual(calls.map(({ name, args }) => ({ name, args })));
    const ids = toolCalls.map((call) => call.id);
    expect(new Set(ids).size).toBe(calls.length);
    expect(ids).toEqual(calls.map((_call, index) => `call_${index}`));
    expect(finishOf(events)).toMatchObject({
      finishReason: 'tool_calls',
      rawFinishReason: 'STOP',
      usage: reportedUsage(recorded),
    });
  });

  it('keeps the vendor’s own call ids, and makes repeated ones unique', () => {
    const events = convert({
      candidates: [
        {
          content: {
            parts: [
              { functionCall: { id: 'fc-1', name: 'a', args: {} } },
              { functionCall: { id: 'fc-1', name: 'b' } },
              { functionCall: { name: 'c', args: { x: 1 } } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
    });
    const calls = events.filter((event) => event.type === 'tool-call');
    expect(calls.map((call) => call.id)).toEqual(['fc-1', 'fc-1_1', 'call_2']);
    expect(calls.map((call) => call.arguments)).toEqual(['{}', '{}', '{"x":1}']);
  });

  it('gives thought summaries as reasoning, closed by the sealed signature on the next part', () => {
    const events = convert({
      candidates: [
        {
          content: {
            parts: [
              { text: 'Thinking about paws…', thought: true },
              { text: 'Eight.', thoughtSignature: 'c2lnbmF0dXJl' },
            ],
          },
          finishReason: 'MAX_TOKENS',
        },
      ],
    });
    expect(events).toEqual([
      { type: 'reasoning-delta', text: 'Thinking about paws…' },
      { type: 'reasoning-delta', text: '', signature: `gw1:${providerId}:c2lnbmF0dXJl` },
      { type: 'text-delta', text: 'Eight.' },
      {
        type: 'finish',
        finishReason: 'length',
        rawFinishReason: 'MAX_TOKENS',
        stopSequence: null,
        usage: null,
      },
    ]);
  });

  it('finishes a filtered candidate without content as content_filter', () => {
    const events = convert({
      candidates: [{ finishReason: 'SAFETY', index: 0 }],
      usageMetadata: { promptTokenCount: 5 },
    });
    expect(events).toEqual([
      {
        type: 'finish',
        finishReason: 'content_filter',
        rawFinishReason: 'SAFETY',
        stopSequence: null,
        usage: { promptTokens: 5, completionTokens: 0 },
      },
    ]);
  });

  it('finishes a blocked prompt (no candidates) as content_filter with its block reason', () => {
    const recorded = fixtureJson('gemini-prompt-blocked.json');
    expect(convert(recorded)).toEqual([
      {
        type: 'finish',
        finishReason: 'content_filter',
        rawFinishReason: recorded.promptFeedback!.blockReason,
        stopSequence: null,
        usage: { promptTokens: recorded.usageMetadata!.promptTokenCount, completionTokens: 0 },
      },
    ]);
  });

  it.each([
    ['a JSON array', []],
    ['a string', 'hello'],
    ['candidates that are not a list', { candidates: 'many' }],
    [
      'a function call without a name',
      { candidates: [{ content: { parts: [{ functionCall: { args: {} } }] } }] },
    ],
    ['no candidates and no block reason', { usageMetadata: { promptTokenCount: 3 } }],
  ])('refuses %s as malformed', (_what, body) => {
    const error = thrownBy(() => convert(body));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure).toBe('malformed');
    expect((error as UpstreamError).providerId).toBe(providerId);
  });

  it('reads an error body answered with 200 as the vendor’s error', () => {
    const error = thrownBy(() =>
      convert({ error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } }),
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      failure: 'in_band',
      message: 'Internal error encountered.',
      details: { status: 500, upstreamType: 'INTERNAL' },
    });
  });
});
